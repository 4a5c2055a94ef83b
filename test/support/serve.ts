// `printhub serve` as its own process: what technicians run, and what kill -9 can stop.
import { join } from 'node:path'
import { ROOT } from './cli.ts'

export interface ServeProcess {
  url: string
  /** Everything printed to stdout so far. */
  output(): string
  process: ReturnType<typeof Bun.spawn>
  /** Sends SIGTERM and waits for the exit code. */
  stop(): Promise<number>
}

export async function spawnServe(dataDir: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), 'serve', '--host', '127.0.0.1', '--port', '0', '--data', dataDir], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdout: 'pipe',
    stderr: 'inherit',
  })
  let output = ''
  const decoder = new TextDecoder()
  const reader = child.stdout.getReader()
  // Keep reading for the life of the process, so its request log never blocks on a full pipe.
  const url = await new Promise<string>((resolve, reject) => {
    void (async () => {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return reject(new Error(`serve exited before listening:\n${output}`))
        output += decoder.decode(value, { stream: true })
        const match = /listening on (http:\/\/[^\s,]+)/.exec(output)
        if (match) resolve(match[1]!)
      }
    })()
  })
  return {
    url,
    output: () => output,
    process: child,
    async stop() {
      child.kill('SIGTERM')
      return child.exited
    },
  }
}
