// GET /v1/projects/:projectId/events: a project's events as Server-Sent Events, against a real hub
// over real HTTP. A job's life in order; resuming after the last event seen (header or query), also
// across a restart of the hub, with nothing lost or repeated; `reset` when the point was pruned;
// a printer's change; the API's rules for keys and bad input.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { ProjectEvent } from '../../src/protocol/events.ts'
import type { Job } from '../../src/protocol/job.ts'
import { setPrinterConnection } from '../support/fixtures.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'
import { openSse, type SseStream } from '../support/sse.ts'

let t: TestHub
beforeAll(async () => {
  t = await startTestHub({ env: { PRINTHUB_STATUS_POLL_MS: '200' } })
})
afterAll(() => t.stop())

const eventsUrl = (query = '') => `${t.url}/v1/projects/${t.projectId}/events${query}`
const auth = (key = t.apiKey) => ({ authorization: `Bearer ${key}` })

async function submit(overrides: Record<string, unknown> = {}): Promise<Job> {
  const response = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody(overrides) })
  expect(response.status).toBe(202)
  return (await response.json()).job
}

/** The next event of the stream, its frame checked against its data. */
async function nextEvent(stream: SseStream): Promise<ProjectEvent> {
  const frame = await stream.next()
  const event = JSON.parse(frame.data!) as ProjectEvent
  expect(frame.id).toBe(String(event.id))
  expect(frame.event).toBe(event.type)
  return event
}

/** Events of the stream until `job`'s reaches `state`. */
async function untilState(stream: SseStream, jobId: string, state: string): Promise<ProjectEvent[]> {
  const seen: ProjectEvent[] = []
  for (;;) {
    const event = await nextEvent(stream)
    seen.push(event)
    if (event.type === 'job.state_changed' && event.job.id === jobId && event.state === state) return seen
  }
}

describe('the event stream', () => {
  test("a job's life, in order: created, then each state with the one before, the job as it was then", async () => {
    const stream = await openSse(eventsUrl(), auth())
    expect(stream.status).toBe(200)
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    const job = await submit({ metadata: { order: '77' } })
    const events = (await untilState(stream, job.id, 'COMPLETED')).filter((e) => 'job' in e && e.job.id === job.id)
    stream.close()
    expect(events[0]).toMatchObject({
      type: 'job.created',
      job: { id: job.id, state: 'PENDING', metadata: { order: '77' } },
    })
    const changes = events.slice(1) as Extract<ProjectEvent, { type: 'job.state_changed' }>[]
    expect(changes.map((e) => [e.previousState, e.state])).toEqual([
      ['PENDING', 'DISPATCHING'],
      ['DISPATCHING', 'DELIVERED'],
      // The demo printer prints as it takes the bytes: no confirmation is awaited, so no PRINTING.
      ['DELIVERED', 'COMPLETED'],
    ])
    expect(changes.at(-1)).toMatchObject({
      state: 'COMPLETED',
      attemptCount: 1,
      lastErrorCode: null,
      job: { state: 'COMPLETED', attemptCount: 1 },
    })
    for (const change of changes) expect(change.job.state).toBe(change.state)
    const ids = events.map((e) => e.id)
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    for (const event of events) expect(Date.parse(event.occurredAt)).toBeGreaterThan(0)
  })

  for (const [how, resume] of [
    ['Last-Event-ID', (id: number) => ({ url: eventsUrl(), headers: { ...auth(), 'last-event-id': String(id) } })],
    ['?after=', (id: number) => ({ url: eventsUrl(`?after=${id}`), headers: auth() })],
  ] as const) {
    test(`resumes exactly after the last event seen, by ${how}: nothing lost, nothing twice`, async () => {
      const first = await openSse(eventsUrl(), auth())
      const a = await submit()
      const seen = await untilState(first, a.id, 'COMPLETED')
      first.close()
      // While no one listens: two more jobs, printed.
      const b = await submit()
      const c = await submit()
      const { url, headers } = resume(seen.at(-1)!.id)
      const again = await openSse(url, headers)
      const missed = await nextEvent(again)
      expect(missed).toMatchObject({ type: 'job.created', job: { id: b.id } })
      expect(missed.id).toBeGreaterThan(seen.at(-1)!.id)
      const rest = await untilState(again, c.id, 'COMPLETED')
      const all = [missed, ...rest]
      expect(all.map((e) => e.id)).toEqual(
        t.hub.store.events
          .after(t.projectId, seen.at(-1)!.id, 1_000)
          .slice(0, all.length)
          .map((e) => e.id),
      )
      // A new job's creation comes next: nothing of before was sent twice.
      const sentinel = await submit()
      expect(await nextEvent(again)).toMatchObject({ type: 'job.created', job: { id: sentinel.id } })
      again.close()
      await untilState(await openSse(eventsUrl(`?after=${missed.id}`), auth()), sentinel.id, 'COMPLETED')
    })
  }

  test('a point the log has pruned: the stream says reset first, then goes on', async () => {
    const job = await submit()
    const stream = await openSse(eventsUrl('?after=0'), auth())
    const old = await nextEvent(stream)
    stream.close()
    await untilState(await openSse(eventsUrl(`?after=${old.id}`), auth()), job.id, 'COMPLETED')
    // Everything so far pruned, as a week's retention would.
    while (t.hub.store.events.prune(Date.now() + 1_000, 1_000_000, 500) > 0);
    t.hub.store.commits.commit()
    const later = await submit()
    const resumed = await openSse(eventsUrl(`?after=${old.id}`), auth())
    const reset = await resumed.next()
    expect(reset.event).toBe('reset')
    expect(JSON.parse(reset.data!).prunedThrough).toBe(t.hub.store.events.prunedThrough(t.projectId))
    expect(await nextEvent(resumed)).toMatchObject({ type: 'job.created', job: { id: later.id } })
    resumed.close()
  })

  test("a printer's change: printer.state_changed with the state before and the printer", async () => {
    const printer = t.hub.store.printers.add({
      projectId: t.projectId,
      remoteId: 'patio',
      name: null,
      connection: 'virtual://patio',
      profile: 'generic-80mm',
      width: 80,
      agentId: t.hub.store.agents.builtin()!.id,
    })!
    const stream = await openSse(eventsUrl(), auth())
    setPrinterConnection(t.hub.store, printer.id, 'virtual://patio?mode=offline')
    for (;;) {
      const event = await nextEvent(stream)
      if (event.type === 'printer.state_changed' && event.printer.id === printer.id && event.state === 'offline') {
        expect(event.printer).toMatchObject({ id: printer.id, name: 'patio', state: 'offline' })
        break
      }
    }
    stream.close()
  })

  test('a key of the project with jobs:read; bad positions are 400 before anything streams', async () => {
    const other = t.hub.store.projects.create('elsewhere')
    const otherKey = t.hub.store.apiKeys.create(other.id, ['jobs:read'], null).secret
    const writeOnly = t.hub.store.apiKeys.create(t.projectId, ['jobs:write'], null).secret
    for (const [headers, status] of [
      [{}, 401],
      [auth(otherKey), 401],
      [auth(writeOnly), 403],
    ] as const)
      expect((await fetch(eventsUrl(), { headers })).status).toBe(status)
    for (const [query, headers, path] of [
      ['?after=abc', auth(), 'query.after'],
      ['?after=-1', auth(), 'query.after'],
      ['?since=1', auth(), 'query.since'],
      ['', { ...auth(), 'last-event-id': 'evt-1' }, 'header.last-event-id'],
    ] as const) {
      const response = await fetch(eventsUrl(query), { headers })
      expect([query, response.status]).toEqual([query, 400])
      expect((await response.json()).error.details[0].path).toBe(path)
    }
  })
})

describe('across a restart of the hub', () => {
  test('a reader that resumes after the restart gets the events it missed, once each, in order', async () => {
    const dataDir = t.dataDir
    const key = t.apiKey
    const stream = await openSse(eventsUrl(), auth())
    const before = await submit()
    const seen = await untilState(stream, before.id, 'COMPLETED')
    stream.close()
    const missedJob = await submit()
    await t.hub.stop()
    t = await startTestHub({ dataDir, env: { PRINTHUB_STATUS_POLL_MS: '200' } })
    const resumed = await openSse(eventsUrl(), { ...auth(key), 'last-event-id': String(seen.at(-1)!.id) })
    const first = await nextEvent(resumed)
    expect(first).toMatchObject({ type: 'job.created', job: { id: missedJob.id } })
    expect(first.id).toBeGreaterThan(seen.at(-1)!.id)
    await untilState(resumed, missedJob.id, 'COMPLETED')
    resumed.close()
  })
})
