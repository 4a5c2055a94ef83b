// `printhub serve` as its own process: what technicians run, and what kill -9 can stop.
import { readFileSync } from 'node:fs'
import { PRINTHUB, ROOT } from './cli.ts'

export interface ServeProcess {
  url: string
  /** With --json: the `listening` event. */
  listening: Record<string, any> | undefined
  /** Everything printed to stdout so far. */
  output(): string
  /** Everything it wrote to stderr, once it exited. */
  errors: Promise<string>
  process: ReturnType<typeof Bun.spawn>
  /** Sends SIGTERM and waits for the exit code. */
  stop(): Promise<number>
  /** Its resident memory now, in MB. */
  rssMb(): number
}

export interface ServeOptions {
  json?: boolean
  env?: Record<string, string>
  port?: number
  /** The printhub to run; the one the tests run (see cli.ts) by default. */
  executable?: string[]
  cwd?: string
  /** More arguments (e.g. `--log-format json`, whose lines are JSON too). */
  args?: string[]
  /**
   * A command the hub is started under (it ends by running its arguments), e.g. to mount a file system for it first.
   */
  wrap?: string[]
}

export async function spawnServe(dataDir: string, options: ServeOptions = {}): Promise<ServeProcess> {
  const args = [
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    String(options.port ?? 0),
    '--data',
    dataDir,
    ...(options.json ? ['--json'] : []),
    ...(options.args ?? []),
  ]
  const child = Bun.spawn([...(options.wrap ?? []), ...(options.executable ?? PRINTHUB), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let output = ''
  const decoder = new TextDecoder()
  const reader = child.stdout.getReader()
  const errors = new Response(child.stderr).text()
  const json = options.json || options.args?.join(' ').includes('--log-format json')
  const started = json ? /^(\{.*"event":"listening".*)$/m : /listening on (https?:\/\/[^\s,]+)/
  // Keep reading for the life of the process, so its request log never blocks on a full pipe.
  const found = await new Promise<string>((resolve, reject) => {
    void (async () => {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return reject(new Error(`serve exited before listening:\n${output}${await errors}`))
        output += decoder.decode(value, { stream: true })
        const match = started.exec(output)
        if (match) resolve(match[1]!)
      }
    })()
  })
  const listening = json ? (JSON.parse(found) as Record<string, any>) : undefined
  return {
    url: listening?.url ?? found,
    listening,
    output: () => output,
    errors,
    process: child,
    async stop() {
      child.kill('SIGTERM')
      return child.exited
    },
    rssMb: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024,
  }
}
