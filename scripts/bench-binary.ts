// The executable part of `bun run bench`: the compiled x64 executable as a technician runs it:
// its size, start-up to the first 200 on an initialised data directory (median of 10), idle RSS,
// and RSS after 100,000 jobs printed on the demo printer.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SectionResult } from './bench.ts'
import { rssMb, sized, UNLIMITED_KEY } from './bench-hub.ts'
import { binaryPath, build } from './build.ts'
import { freePort } from '../test/support/ports.ts'

export interface BinaryFigures {
  sizeMiB: { arm64: number; x64: number }
  startupMs: { median: number; min: number; max: number }
  idleRssMb: number
  rssAfterJobsMb: number
  jobs: number
  jobsPerSecond: number
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

async function serveUntilHealthy(binary: string, dataDir: string, env: Record<string, string> = {}): Promise<{ child: ReturnType<typeof Bun.spawn>; url: string; ms: number }> {
  const port = freePort()
  const url = `http://127.0.0.1:${port}`
  const started = performance.now()
  const child = Bun.spawn([binary, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', dataDir], { env: { PATH: process.env.PATH ?? '', ...env }, stdout: 'ignore', stderr: 'ignore' })
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).status === 200) return { child, url, ms: performance.now() - started }
    } catch {
      // Not listening yet.
    }
    if (child.exitCode !== null) throw new Error(`the executable exited with ${child.exitCode} before answering`)
    if (performance.now() - started > 10_000) throw new Error('the executable did not answer within 10 s')
    await Bun.sleep(1)
  }
}

async function stop(child: ReturnType<typeof Bun.spawn>): Promise<void> {
  child.kill('SIGTERM')
  const code = await child.exited
  if (code !== 0) throw new Error(`the executable exited with ${code} on SIGTERM`)
}

export async function measureBinary(): Promise<BinaryFigures> {
  await build()
  const binary = binaryPath('x64')
  const home = mkdtempSync(join(tmpdir(), 'printhub-bench-binary-'))
  try {
    const dataDir = join(home, 'data')
    const { projectId, apiKey } = init(binary, dataDir)
    const startups: number[] = []
    for (let i = 0; i < STARTS; i++) {
      const { child, ms } = await serveUntilHealthy(binary, dataDir)
      startups.push(ms)
      await stop(child)
    }
    startups.sort((a, b) => a - b)

    const { child, url } = await serveUntilHealthy(binary, dataDir, UNLIMITED_KEY)
    await Bun.sleep(IDLE_SETTLE_MS)
    const idleRssMb = rssMb(child.pid)
    let next = 0
    const started = performance.now()
    const submit = (i: number) =>
      fetch(`${url}/v1/projects/${projectId}/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ printerId: 'demo', idempotencyKey: `bench-${i}`, document: { width: 80, sections: [{ type: 'text', value: `Order ${i}` }, { type: 'row', left: 'Flat white', right: '3.50' }, { type: 'cut' }] } }),
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
      startupMs: { median: (startups[STARTS / 2 - 1]! + startups[STARTS / 2]!) / 2, min: startups[0]!, max: startups.at(-1)! },
      idleRssMb,
      rssAfterJobsMb,
      jobs: JOBS,
      jobsPerSecond: Math.round(JOBS / seconds),
    }
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

// ---- Executable section -----------------------------------------------------------------------

const BINARY_TARGETS = { startupMs: 50 } as const

export async function binarySection(): Promise<SectionResult> {
  console.log(`executable: build both, start the x64 one ${STARTS} times, then ${JOBS.toLocaleString('en')} jobs to the demo printer...`)
  const f = await measureBinary()
  return {
    report: [
      'the compiled x64 executable (started as a technician does, on an initialised data directory)',
      `size                           arm64 ${f.sizeMiB.arm64} MiB, x64 ${f.sizeMiB.x64} MiB`,
      `start-up to the first 200      median ${f.startupMs.median.toFixed(0)} ms of 10 (${f.startupMs.min.toFixed(0)}-${f.startupMs.max.toFixed(0)} ms)`,
      `RSS                            idle ${f.idleRssMb.toFixed(1)} MB, after ${f.jobs.toLocaleString('en')} jobs ${f.rssAfterJobsMb.toFixed(1)} MB (${f.jobsPerSecond} jobs/s, 16 clients)`,
    ],
    checks: [{ name: 'executable start-up to first 200', value: Math.round(f.startupMs.median), unit: ' ms', target: `< ${BINARY_TARGETS.startupMs} ms`, pass: f.startupMs.median < BINARY_TARGETS.startupMs }],
    results: { ...f, targets: BINARY_TARGETS },
  }
}
