// One side of the API differential: printhub's CLI and `serve` run from one source tree on a fresh data directory,
// as test/support/cli.ts and serve.ts run them, with every answer recorded (normalised) in order.
import { join } from 'node:path'
import { shownStoreUrl } from '../../src/domain/store-url.ts'
import { Normaliser } from './normalise.ts'

/** A recorded step: a request and its answer, a CLI command and its output, or a start of the hub. */
export interface Entry {
  index: number
  method: string
  path: string
  status: number
  headers: Record<string, string>
  body: unknown
}

export interface SideOptions {
  name: string
  /** The source tree whose src/main.ts is run (its cwd too). */
  tree: string
  dataDir: string
  /** The environment of every process of this side (the same on both sides but for what is meant to differ). */
  env: Record<string, string>
  /**
   * A cluster's database: this side is a node of a cluster on it (`serve --store`), and its CLI works on it
   * (`--store`), the data directory keeping only the node's own files.
   */
  store?: string
}

/** The answer headers that matter; others (date, the request ID's value, keep-alive) are left out. */
const HEADERS = [
  'content-type',
  'cache-control',
  'x-content-type-options',
  'content-length',
  'content-disposition',
  'set-cookie',
  'www-authenticate',
  'retry-after',
  'location',
  'x-accel-buffering',
  'x-printhub-server-id',
  'x-job-id',
  'content-security-policy',
  'x-frame-options',
]

export class HubSide {
  readonly entries: Entry[] = []
  readonly normaliser = new Normaliser()
  url = ''
  /** The hub's stdout and stderr, kept for inspection. */
  log = ''
  private serving: ReturnType<typeof Bun.spawn> | undefined

  constructor(readonly options: SideOptions) {
    this.normaliser.literal(options.dataDir, '<data>')
    this.normaliser.literal(options.tree, '<tree>')
    if (options.store) this.normaliser.literal(shownStoreUrl(options.store), '<store>')
  }

  /** Where this side's data is, as its commands are told. */
  private where(): string[] {
    return ['--data', this.options.dataDir, ...(this.options.store ? ['--store', this.options.store] : [])]
  }

  record(entry: Omit<Entry, 'index'>): void {
    const n = this.normaliser
    this.entries.push({
      index: this.entries.length,
      method: entry.method,
      path: n.text(entry.path),
      status: entry.status,
      headers: n.json(entry.headers) as Record<string, string>,
      body: n.json(entry.body),
    })
  }

  /** Runs `printhub ARGS --data DIR` in this tree; records its exit code and output (JSON when it is). */
  async cli(
    args: string[],
    { stdin, json = true, recorded = true }: { stdin?: string; json?: boolean; recorded?: boolean } = {},
  ): Promise<any> {
    const command = [...args, ...this.where(), ...(json ? ['--json'] : [])]
    const child = Bun.spawn([process.execPath, join(this.options.tree, 'src/main.ts'), ...command], {
      cwd: this.options.tree,
      env: this.options.env,
      ...(stdin === undefined ? {} : { stdin: new TextEncoder().encode(stdin) }),
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    let parsed: unknown = stdout
    try {
      parsed = json ? JSON.parse(stdout) : stdout
    } catch {}
    const entry = { method: 'CLI', path: args.join(' '), status: code, headers: {}, body: { stdout: parsed, stderr } }
    // Not recorded, its IDs are still named in the order they were seen, as a recorded step's would be.
    if (recorded) this.record(entry)
    else this.normaliser.json(entry.body)
    return parsed
  }

  /** Starts `serve --json` on a free port; records and returns its `listening` event. */
  async serve(): Promise<Record<string, any>> {
    const args = ['serve', ...this.where(), '--host', '127.0.0.1', '--port', '0', '--json']
    const child = Bun.spawn([process.execPath, join(this.options.tree, 'src/main.ts'), ...args], {
      cwd: this.options.tree,
      env: this.options.env,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    this.serving = child
    void new Response(child.stderr).text().then((text) => (this.log += text))
    const reader = child.stdout.getReader()
    const decoder = new TextDecoder()
    let output = ''
    const line = await new Promise<string>((resolve, reject) => {
      void (async () => {
        // Read for the life of the process, so that its log never blocks on a full pipe.
        for (;;) {
          const { done, value } = await reader.read()
          if (done) return reject(new Error(`${this.options.name}: serve exited before listening:\n${output}`))
          const text = decoder.decode(value, { stream: true })
          output += text
          this.log += text
          const found = /^(\{.*"event":"listening".*)$/m.exec(output)
          if (found) resolve(found[1]!)
        }
      })()
    })
    const listening = JSON.parse(line) as Record<string, any>
    this.url = listening.url
    this.normaliser.literal(this.url, 'http://127.0.0.1:<port>')
    this.normaliser.literal(new URL(this.url).host, '127.0.0.1:<port>')
    const setup = typeof listening.setupUrl === 'string' ? listening.setupUrl.split('#')[1] : undefined
    if (setup) this.normaliser.literal(setup, this.normaliser.placeholder('setup', setup))
    this.record({ method: 'SERVE', path: args.slice(0, 1).join(' '), status: 0, headers: {}, body: listening })
    return listening
  }

  /** Stops the hub (SIGTERM, SIGKILL after 15 s) and records its exit code. */
  async stop(): Promise<void> {
    const child = this.serving
    if (!child) return
    this.serving = undefined
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    const code = await child.exited
    clearTimeout(timer)
    this.record({ method: 'STOP', path: 'serve', status: code, headers: {}, body: null })
  }

  /** Kills a hub still running (after a failure), without recording. */
  kill(): void {
    this.serving?.kill('SIGKILL')
  }

  /** The headers that matter, with content-length said as `<body length>` when it is the body's exact length. */
  headersOf(response: Response, bytes: number): Record<string, string> {
    const out: Record<string, string> = {}
    for (const name of HEADERS) {
      const value = response.headers.get(name)
      if (value === null) continue
      out[name] = name === 'content-length' && Number(value) === bytes ? '<body length>' : value
    }
    if (response.headers.has('x-request-id')) out['x-request-id'] = '<present>'
    return out
  }
}
