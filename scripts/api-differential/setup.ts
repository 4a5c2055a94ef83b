// The API differential's setup of one side, through that side's own CLI: a first start (its project, API key and
// setup link), then, with the hub stopped, a second project, printers (the demo printer's neighbours: one set
// offline, one at an unreachable address, a file in the data directory's output folder, another virtual one), API
// keys with fewer scopes and of the other project, and a pairing code; then the hub started again, settled.
import { createHmac } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from './client.ts'
import type { HubSide } from './hub.ts'

/** A webhook receiver that answers 204 and keeps what it was sent, for both sides in turn. */
export class Receiver {
  readonly received: { headers: Record<string, string>; text: string }[] = []
  /** The secret of the webhook that sends here (the side's own), to check its signatures. */
  secret = ''
  private readonly server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (request) => {
      const headers: Record<string, string> = {}
      for (const name of ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'user-agent']) {
        const value = request.headers.get(name)
        if (value !== null) headers[name] = value
      }
      this.received.push({ headers, text: await request.text() })
      return new Response(null, { status: 204 })
    },
  })
  readonly url = `http://127.0.0.1:${this.server.port}/hook`

  /**
   * The last delivery as recorded: its timestamp (unix seconds) as a time, its Standard Webhooks signature checked
   * with the secret (it signs the timestamp, so only whether it is right can be the same on both sides).
   */
  last(): { headers: Record<string, string>; body: unknown } {
    const delivery = this.received.at(-1)
    if (!delivery) return { headers: {}, body: null }
    const headers = { ...delivery.headers }
    const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature } = headers
    const key = Buffer.from(this.secret.replace(/^whsec_/, ''), 'base64')
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${delivery.text}`).digest('base64')
    if (signature !== undefined) headers['webhook-signature'] = signature === `v1,${expected}` ? '<valid>' : signature
    if (timestamp !== undefined && /^\d{9,11}$/.test(timestamp)) headers['webhook-timestamp'] = '<time>'
    let body: unknown = delivery.text
    try {
      body = JSON.parse(delivery.text)
    } catch {}
    return { headers, body }
  }

  stop(): void {
    void this.server.stop(true)
  }
}

export interface Context {
  side: HubSide
  http: Client
  receiver: Receiver
  /** The first start's project, its API key, and the demo printer's record ID. */
  project: string
  key: string
  /** A key of that project with jobs:read only; the other project and its key. */
  readKey: string
  otherProject: string
  otherKey: string
  pairingCode: string
  setupToken: string
  /** The first project's printers: their record IDs by name. */
  printers: Record<string, string>
}

export const TERMINAL = new Set(['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'])

/** Sets a side up and starts its hub for the scenario. */
export async function setUp(side: HubSide, receiver: Receiver): Promise<Context> {
  side.normaliser.literal(new URL(receiver.url).host, '127.0.0.1:<receiver port>')
  // A cluster's first data is made by `init` (a node makes none), not recorded; a hub's by its first start.
  const made = side.options.store ? await side.cli(['init'], { recorded: false }) : undefined
  const first = await side.serve()
  await side.stop()
  const firstStart = made ?? first.firstStart
  const project: string = firstStart?.projectId ?? ''
  const key: string = firstStart?.apiKey ?? ''
  const data = side.options.dataDir
  mkdirSync(join(data, 'output'), { recursive: true })
  const other = await side.cli(['projects', 'create', 'Second project'])
  const printers: [string, string, ...string[]][] = [
    ['off', 'virtual://off?mode=offline'],
    ['unreachable', 'tcp://127.0.0.1:1'],
    ['file', `file://${join(data, 'output', 'receipts.bin')}`],
    ['second', 'virtual://second', '--name', 'Second printer', '--profile', 'generic-58mm'],
  ]
  for (const [id, connection, ...more] of printers)
    await side.cli(['printers', 'add', '--project', project, '--id', id, '--connection', connection, ...more])
  await side.cli(['printers', 'add', '--project', other?.id ?? '', '--id', 'elsewhere', '--connection', 'virtual'])
  const reader = await side.cli(['keys', 'create', '--project', project, '--scope', 'jobs:read', '--name', 'reader'])
  const otherKey = await side.cli(['keys', 'create', '--project', other?.id ?? '', '--name', 'other'])
  const code = await side.cli(['pairing-codes', 'create', '--ttl', '1h'])
  await side.cli(['printers', 'list', '--project', project])

  const second = await side.serve()
  const http = new Client(side)
  // Settled: every printer but the file (whose state cannot be asked) past `unknown`, and the states the same for
  // half a second (a cluster's node records what its printers say as it takes them, after a start).
  let before = ''
  let since = 0
  await http.until(`/v1/projects/${project}/printers`, key, (json) => {
    const printers: { name: string; state: string }[] = json?.printers ?? []
    const states = JSON.stringify(printers.map((p) => p.state))
    if (states !== before) [before, since] = [states, Date.now()]
    return printers.every((p) => p.name === 'file' || p.state !== 'unknown') && Date.now() - since >= 500
  })
  const listed = await fetch(`${side.url}/v1/projects/${project}/printers`, {
    headers: { authorization: `Bearer ${key}` },
  }).then((response) => response.json() as Promise<{ printers?: { id: string; name: string }[] }>)
  return {
    side,
    http,
    receiver,
    project,
    key,
    readKey: reader?.apiKey ?? '',
    otherProject: other?.id ?? '',
    otherKey: otherKey?.apiKey ?? '',
    pairingCode: code?.code ?? '',
    // A cluster's node shows the link once, while it is valid (a node started again keeps it).
    setupToken: tokenOf(second.setupUrl) ?? tokenOf(first.setupUrl) ?? '',
    printers: Object.fromEntries((listed.printers ?? []).map((p) => [p.name, p.id])),
  }
}

const tokenOf = (setupUrl: unknown): string | undefined =>
  typeof setupUrl === 'string' ? setupUrl.split('#')[1] : undefined

/** Waits until a job of the first project has ended (not recorded). */
export async function settled(context: Context, jobId: string | undefined): Promise<void> {
  if (!jobId) return
  await context.http.until(`/v1/projects/${context.project}/jobs/${jobId}`, context.key, (json) =>
    TERMINAL.has(json?.job?.state),
  )
}
