// The executable part of `bun run bench`: the compiled x64 executable as a technician runs it:
// its size, start-up to the first 200 on an initialised data directory (median of 10), idle RSS,
// and RSS after 100,000 jobs printed on the demo printer. Start-up and idle RSS are measured
// against a yardstick in the same run (scripts/bench-executable-floor.ts: the runtime parts the hub
// must use and its route table, none of its logic), started alternately with the hub. Both files'
// pages are first dropped from the page cache, so the figures are those of an executable read from
// disk, as after a reboot (a file just written maps in larger pieces: about 5 MB more RSS).
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SERVICE_JIT_ENVIRONMENT } from '../src/platform/jit.ts'
import type { SectionResult } from './bench.ts'
import { ROOT, rssMb, sized, UNLIMITED_KEY } from './bench-hub.ts'
import { binaryPath, build, COMPILE_FLAGS, compile, recordBytecodeOrder } from './build.ts'
import { freePort } from './free-port.ts'

export interface BinaryFigures {
  sizeMiB: { arm64: number; x64: number }
  startupMs: Spread
  idleRssMb: number
  /** The yardstick's, measured alternately with the hub's. */
  floor: { startupMs: Spread; idleRssMb: number }
  rssAfterJobsMb: number
  jobs: number
  jobsPerSecond: number
}

interface Spread {
  median: number
  min: number
  max: number
}

const STARTS = sized(10, 4)
const JOBS = sized(100_000, 10_000)
const CLIENTS = 16
const IDLE_SETTLE_MS = 2_000

function init(binary: string, dataDir: string): { projectId: string; apiKey: string } {
  const result = Bun.spawnSync([binary, 'init', '--data', dataDir, '--json'], { stdout: 'pipe', stderr: 'pipe' })
  if (result.exitCode !== 0) throw new Error(`init failed: ${result.stderr.toString()}`)
  return JSON.parse(result.stdout.toString())
}

const hubCommand = (binary: string, dataDir: string) => (port: number) => [
  binary,
  'serve',
  '--host',
  '127.0.0.1',
  '--port',
  String(port),
  '--data',
  dataDir,
]

async function serveUntilHealthy(
  command: (port: number) => string[],
  env: Record<string, string> = {},
): Promise<{ child: ReturnType<typeof Bun.spawn>; url: string; ms: number }> {
  const port = freePort()
  const url = `http://127.0.0.1:${port}`
  const started = performance.now()
  // Started as the installed service is: with its JIT options (platform/jit.ts).
  const child = Bun.spawn(command(port), {
    env: { PATH: process.env.PATH ?? '', ...SERVICE_JIT_ENVIRONMENT, ...env },
    stdout: 'ignore',
    stderr: 'ignore',
  })
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).status === 200) return { child, url, ms: performance.now() - started }
    } catch {
      // Not listening yet.
    }
    if (child.exitCode !== null) throw new Error(`${command(port)[0]} exited with ${child.exitCode} before answering`)
    if (performance.now() - started > 10_000) throw new Error('the executable did not answer within 10 s')
    await Bun.sleep(1)
  }
}

async function stop(child: ReturnType<typeof Bun.spawn>): Promise<void> {
  child.kill('SIGTERM')
  const code = await child.exited
  if (code !== 0 && code !== 143) throw new Error(`the executable exited with ${code} on SIGTERM`)
}

/** Drops a file's pages from the page cache (written back first), as after a reboot. */
function dropFromPageCache(file: string): void {
  for (const command of [
    ['sync', file],
    ['dd', `if=${file}`, 'iflag=nocache', 'count=0', 'status=none'],
  ]) {
    const result = Bun.spawnSync(command, { stderr: 'pipe' })
    if (result.exitCode !== 0) throw new Error(`${command.join(' ')} failed: ${result.stderr.toString()}`)
  }
}

/**
 * The yardstick executable, built with the hub's flags, serving the hub's own route table; its
 * bytecode laid out by its own start, as the hub's is (scripts/build.ts).
 */
async function buildFloor(): Promise<string> {
  const { startHub } = await import('../src/hub/start.ts')
  const { resolveConfig } = await import('../src/hub/config.ts')
  const dir = mkdtempSync(join(tmpdir(), 'printhub-bench-routes-'))
  try {
    const hub = await startHub(resolveConfig({ data: dir, host: '127.0.0.1', port: '0' }, {}), { events: () => {} })
    const routes = hub.routes()
    await hub.stop()
    const outfile = join(ROOT, 'dist', 'printhub-floor-x64')
    const args = (order: string[]) => [
      ...COMPILE_FLAGS,
      '--target=bun-linux-x64',
      `--define=FLOOR_ROUTES=${JSON.stringify(routes)}`,
      ...order,
      '--outfile',
      outfile,
      join(ROOT, 'scripts/bench-executable-floor.ts'),
    ]
    compile(args([]), 'the yardstick')
    const orderFile = join(dir, 'floor.order')
    const floorDir = join(dir, 'floor')
    mkdirSync(floorDir)
    await recordBytecodeOrder(outfile, (port) => [String(port), floorDir], orderFile)
    compile(args([`--bytecode-order=${orderFile}`]), 'the yardstick')
    return outfile
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function spread(sorted: number[]): Spread {
  return {
    median: (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) / 2,
    min: sorted[0]!,
    max: sorted.at(-1)!,
  }
}

/** Start-up of each command, alternately, STARTS times; then each one's idle RSS. */
async function startups(commands: ((port: number) => string[])[]): Promise<{ startupMs: Spread; idleRssMb: number }[]> {
  const times = commands.map((): number[] => [])
  for (let i = 0; i < STARTS; i++) {
    for (const [k, command] of commands.entries()) {
      const { child, ms } = await serveUntilHealthy(command)
      times[k]!.push(ms)
      await stop(child)
    }
  }
  const figures = []
  for (const [k, command] of commands.entries()) {
    const { child } = await serveUntilHealthy(command)
    await Bun.sleep(IDLE_SETTLE_MS)
    figures.push({ startupMs: spread(times[k]!.sort((a, b) => a - b)), idleRssMb: rssMb(child.pid) })
    await stop(child)
  }
  return figures
}

export async function measureBinary(): Promise<BinaryFigures> {
  await build()
  const binary = binaryPath('x64')
  const floorBinary = await buildFloor()
  const home = mkdtempSync(join(tmpdir(), 'printhub-bench-binary-'))
  try {
    const dataDir = join(home, 'data')
    const floorDir = join(home, 'floor')
    mkdirSync(floorDir)
    const { projectId, apiKey } = init(binary, dataDir)
    dropFromPageCache(binary)
    dropFromPageCache(floorBinary)
    const [hub, floor] = await startups([hubCommand(binary, dataDir), (port) => [floorBinary, String(port), floorDir]])

    const { child, url } = await serveUntilHealthy(hubCommand(binary, dataDir), UNLIMITED_KEY)
    let next = 0
    const started = performance.now()
    const submit = (i: number) =>
      fetch(`${url}/v1/projects/${projectId}/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          printerId: 'demo',
          idempotencyKey: `bench-${i}`,
          document: {
            width: 80,
            sections: [
              { type: 'text', value: `Order ${i}` },
              { type: 'row', left: 'Flat white', right: '3.50' },
              { type: 'cut' },
            ],
          },
        }),
      })
    const client = async () => {
      for (let i = next++; i < JOBS; i = next++) {
        // The demo printer keeps up; should the project reach its limit of open jobs, wait and retry.
        for (let response = await submit(i); response.status !== 202; response = await submit(i)) {
          if (response.status !== 429) throw new Error(`job ${i} answered ${response.status}: ${await response.text()}`)
          await Bun.sleep(100)
        }
      }
    }
    await Promise.all(Array.from({ length: CLIENTS }, client))
    const seconds = (performance.now() - started) / 1000
    await Bun.sleep(IDLE_SETTLE_MS)
    const rssAfterJobsMb = rssMb(child.pid)
    await stop(child)
    const mib = (path: string) => Number((statSync(path).size / 1024 / 1024).toFixed(1))
    return {
      sizeMiB: { arm64: mib(binaryPath('arm64')), x64: mib(binary) },
      startupMs: hub!.startupMs,
      idleRssMb: hub!.idleRssMb,
      floor: floor!,
      rssAfterJobsMb,
      jobs: JOBS,
      jobsPerSecond: Math.round(JOBS / seconds),
    }
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

// ---- Executable section -----------------------------------------------------------------------

const BINARY_TARGETS = { startupMs: 50, idleRssMb: 50 } as const

export async function binarySection(): Promise<SectionResult> {
  console.log(
    `executable: build both and the yardstick, start the x64 one and the ` +
      `yardstick ${STARTS} times each, then ${JOBS.toLocaleString('en')} jobs ` +
      `to the demo printer...`,
  )
  const f = await measureBinary()
  const range = (ms: Spread) =>
    `median ${ms.median.toFixed(0)} ms of ${STARTS} (${ms.min.toFixed(0)}-${ms.max.toFixed(0)} ms)`
  return {
    report: [
      'the compiled x64 executable (started as a technician does, on an ' +
        'initialised data directory, read from disk as after a reboot)',
      `size                           arm64 ${f.sizeMiB.arm64} MiB, x64 ${f.sizeMiB.x64} MiB`,
      `start-up to the first 200      ${range(f.startupMs)}`,
      `  yardstick                    ${range(f.floor.startupMs)} (the runtime parts and the route table alone)`,
      `RSS                            idle ${f.idleRssMb.toFixed(1)} MB ` +
        `(yardstick ${f.floor.idleRssMb.toFixed(1)} MB), after ` +
        `${f.jobs.toLocaleString('en')} jobs ${f.rssAfterJobsMb.toFixed(1)} MB ` +
        `(${f.jobsPerSecond} jobs/s, 16 clients)`,
    ],
    checks: [
      {
        name: 'executable start-up to first 200',
        value: Math.round(f.startupMs.median),
        unit: ' ms',
        target: `< ${BINARY_TARGETS.startupMs} ms`,
        pass: f.startupMs.median < BINARY_TARGETS.startupMs,
      },
      {
        name: `executable idle RSS (yardstick ${f.floor.idleRssMb.toFixed(1)} MB)`,
        value: Math.round(f.idleRssMb * 10) / 10,
        unit: ' MB',
        target: `< ${BINARY_TARGETS.idleRssMb} MB`,
        pass: f.idleRssMb < BINARY_TARGETS.idleRssMb,
      },
    ],
    results: { ...f, targets: BINARY_TARGETS },
  }
}
