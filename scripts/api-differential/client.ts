// HTTP requests of the API differential against one side's hub: each request and its answer recorded on that side
// (method, path, status, the headers that matter, the body), and the answer handed back for the next steps.
import { createHash } from 'node:crypto'
import type { HubSide } from './hub.ts'

/** A dashboard session: its cookie's token and its CSRF token. */
export interface Session {
  token: string
  csrf: string
}

export interface Call {
  method?: string
  path: string
  /** A JSON body. */
  body?: unknown
  /** A body sent as it is. */
  raw?: string
  /** The body's content type (application/json by default when there is one; null: none). */
  contentType?: string | null
  /** `Authorization: Bearer` with this secret; null: none. */
  bearer?: string | null
  session?: Session
  /** With a session: send its CSRF token (true by default). */
  csrf?: boolean
  headers?: Record<string, string>
  /** How to read the body: by its type; a stream of events until it is quiet; its first event; only its size. */
  read?: 'auto' | 'events' | 'first-event' | 'opaque'
}

export interface Answer {
  status: number
  /** The JSON body (or the events of a stream), `{}` when none. */
  json: any
  headers: Headers
}

export interface StreamEvent {
  id: string | undefined
  event: string | undefined
  data: unknown
}

/** A stream's text until it has been quiet for half a second (5 s at most), or until its first event. */
async function streamText(response: Response, first: boolean): Promise<string> {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const deadline = Date.now() + 5_000
  let text = ''
  for (;;) {
    const left = deadline - Date.now()
    if (left <= 0) break
    const idle = text === '' ? left : Math.min(left, 500)
    const next = await Promise.race([reader.read(), Bun.sleep(idle).then(() => undefined)])
    if (!next || next.done) break
    text += decoder.decode(next.value, { stream: true })
    if (first && /\n\n/.test(text.replace(/^:[^\n]*\n\n/gm, ''))) break
  }
  await reader.cancel().catch(() => {})
  return text
}

/** Server-sent events as frames: comments apart, each event with its ID, type and data (JSON when it is). */
export function parseEvents(text: string): { comments: string[]; events: StreamEvent[] } {
  const comments: string[] = []
  const events: StreamEvent[] = []
  for (const frame of text.split('\n\n')) {
    if (frame.trim() === '') continue
    const event: StreamEvent = { id: undefined, event: undefined, data: undefined }
    let data = ''
    for (const line of frame.split('\n')) {
      if (line.startsWith(':')) comments.push(line)
      else if (line.startsWith('id: ')) event.id = line.slice(4)
      else if (line.startsWith('event: ')) event.event = line.slice(7)
      else if (line.startsWith('data: ')) data += line.slice(6)
    }
    if (event.id === undefined && event.event === undefined && data === '') continue
    try {
      event.data = JSON.parse(data)
    } catch {
      event.data = data
    }
    events.push(event)
  }
  return { comments, events }
}

/**
 * A project's events as recorded: the stream's global event IDs left out (they count every project's events), and
 * the events grouped by what they are about (a job, a printer), in each one's own order: printers and jobs that
 * change at once (a fan-out's printers) may interleave differently from one run to the next.
 */
export function eventsRecord(text: string): unknown {
  const { comments, events } = parseEvents(text)
  const groups = new Map<string, unknown[]>()
  for (const { event, data } of events) {
    const about = data as { job?: { id?: string }; printer?: { name?: string }; id?: unknown }
    const subject = about?.job?.id ?? (about?.printer?.name ? `printer ${about.printer.name}` : '')
    const { id: _, ...rest } = (typeof data === 'object' && data !== null ? data : { data }) as Record<string, unknown>
    groups.set(subject, [...(groups.get(subject) ?? []), { event, ...rest }])
  }
  const subjects = [...groups.keys()].sort()
  const about = (printers: boolean) =>
    subjects
      .filter((subject) => subject.startsWith('printer ') === printers)
      .map((subject) => ({ subject, events: groups.get(subject) }))
  // Jobs' events apart from printers' (whose states a hub and a cluster record at different moments).
  return { comments, count: events.length, subjects: about(false), printers: about(true) }
}

/** A CSV text's rows of cells (RFC 4180: quoted cells, doubled quotes, CRLF). */
export function csvRows(text: string): string[][] {
  const rows: string[][] = []
  for (const line of text.match(/(?:"(?:[^"]|"")*"|[^\r\n"])*(?:\r?\n|$)/g) ?? []) {
    const body = line.replace(/\r?\n$/, '')
    if (body === '' && line === '') continue
    rows.push(
      [...body.matchAll(/(?:^|,)("(?:[^"]|"")*"|[^,]*)/g)].map(([, cell = '']) =>
        cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell,
      ),
    )
  }
  return rows
}

export class Client {
  constructor(readonly side: HubSide) {}

  async call(call: Call): Promise<Answer> {
    const method = call.method ?? 'GET'
    const headers: Record<string, string> = { ...call.headers }
    const body = call.raw ?? (call.body === undefined ? undefined : JSON.stringify(call.body))
    if (body !== undefined && call.contentType !== null)
      headers['content-type'] = call.contentType ?? 'application/json'
    if (call.bearer) headers.authorization = `Bearer ${call.bearer}`
    if (call.session) {
      headers.cookie = `printhub_session=${call.session.token}`
      if (call.csrf !== false) headers['x-csrf-token'] = call.session.csrf
    }
    const response = await fetch(this.side.url + call.path, { method, headers, body, redirect: 'manual' })
    const type = response.headers.get('content-type') ?? ''
    let json: any = {}
    let recorded: unknown
    let bytes = 0
    if (type.startsWith('text/event-stream')) {
      const text = await streamText(response, call.read === 'first-event')
      bytes = -1
      json = parseEvents(text)
      recorded = call.read === 'events' ? eventsRecord(text) : json
    } else {
      const buffer = new Uint8Array(await response.arrayBuffer())
      bytes = buffer.byteLength
      const text = new TextDecoder().decode(buffer)
      if (call.read === 'opaque') recorded = { opaque: type, bytes: bytes > 0 ? '<n>' : 0 }
      else if (/^(image\/|application\/octet-stream)/.test(type))
        recorded = { binary: type, bytes, sha256: createHash('sha256').update(buffer).digest('hex') }
      else if (type.startsWith('application/json')) {
        try {
          json = JSON.parse(text)
          recorded = json
        } catch {
          recorded = { notJson: text }
        }
      } else if (type.startsWith('text/csv')) recorded = { csv: csvRows(text) }
      else recorded = text.includes('\n') ? { lines: text.split(/\r?\n/) } : text
    }
    this.side.record({
      method,
      path: call.path,
      status: response.status,
      headers: this.side.headersOf(response, bytes),
      body: recorded,
    })
    return { status: response.status, json, headers: response.headers }
  }

  /** Asks until `done` says yes (not recorded: only the snapshot taken after it is); false when it never did. */
  async until(path: string, bearer: string, done: (json: any) => boolean, timeoutMs = 20_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const response = await fetch(this.side.url + path, { headers: { authorization: `Bearer ${bearer}` } })
      const json = await response.json().catch(() => undefined)
      if (done(json)) return true
      if (Date.now() > deadline) {
        console.error(`${this.side.options.name}: gave up waiting on ${path}`)
        return false
      }
      await Bun.sleep(50)
    }
  }
}

/** The session a sign-in answer opened: its cookie and CSRF token (empty when none). */
export function sessionOf(answer: Answer): Session {
  const cookie = /printhub_session=([^;]*)/.exec(answer.headers.get('set-cookie') ?? '')?.[1] ?? ''
  return { token: cookie, csrf: answer.json?.csrfToken ?? '' }
}
