// A remote agent as its own process (`printhub agent`), as a technician starts one.
import { PRINTHUB, ROOT } from './cli.ts'

export interface AgentProcess {
  process: ReturnType<typeof Bun.spawn>
  output(): string
  /** Everything it wrote to stderr, once it exited. */
  errors: Promise<string>
}

/** Starts `printhub agent --data DIR ARGS` and waits until it is connected to the hub. */
export async function startAgentProcess(
  dataDir: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<AgentProcess> {
  const child = Bun.spawn([...PRINTHUB, 'agent', '--data', dataDir, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let output = ''
  const decoder = new TextDecoder()
  const reader = child.stdout.getReader()
  const errors = new Response(child.stderr).text()
  await new Promise<void>((resolve, reject) => {
    void (async () => {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return reject(new Error(`the agent exited:\n${output}${await errors}`))
        output += decoder.decode(value, { stream: true })
        if (output.includes('connected to the hub')) resolve()
      }
    })()
  })
  return { process: child, output: () => output, errors }
}
