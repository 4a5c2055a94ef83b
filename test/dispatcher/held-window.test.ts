// The window of jobs a printer's agent holds (src/dispatcher/held-window.ts), end to end: a real hub,
// its API and a stock agent over a real WebSocket (test/support/fake-agent.ts) whose printer takes
// jobs and prints none. The agent is handed HELD_PER_PRINTER of them; the rest wait PENDING in the
// hub, sent to nobody, until the agent has printed some; then they go, each once, in order.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { HELD_PER_PRINTER } from '../../src/dispatcher/held-window.ts'
import type { FakeAgent, Frame } from '../support/fake-agent.ts'
import { ENV, useGatewayHub } from '../support/gateway-fixtures.ts'
import { startTestHub, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

const { pair, online, addPrinter, postJob, clockedHub } = useGatewayHub()
const { h: c, advance } = clockedHub()

/** A hub whose key may post more than the default quota of a minute (this file posts over a thousand jobs a test). */
let h: TestHub
beforeAll(async () => {
  h = await startTestHub({ env: { ...ENV, PRINTHUB_KEY_JOBS_PER_MINUTE: '100000' } })
})
afterAll(() => h?.stop())

/** Takes the agent's next `count` print jobs, acknowledging each as stored (and printing none). */
async function receive(agent: FakeAgent, count: number): Promise<Frame[]> {
  const frames: Frame[] = []
  for (let i = 0; i < count; i++) {
    const frame = await agent.next('server.print_job', { timeoutMs: 10_000 })
    agent.jobReceived(frame)
    frames.push(frame)
  }
  return frames
}

/** Posts `count` jobs, a few at a time, and returns their IDs in the order the hub created them. */
async function postJobs(remoteId: string, count: number, on: TestHub = h): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < count; i += 25) {
    const batch = await Promise.all(Array.from({ length: Math.min(25, count - i) }, () => postJob(remoteId, {}, on)))
    ids.push(...batch.map((job) => job.id))
  }
  const seq = (id: string) =>
    on.hub.store.db.query<{ seq: number }, [string]>('SELECT seq FROM jobs WHERE id = ?').get(id)!.seq
  return ids.sort((a, b) => seq(a) - seq(b))
}

const wireJob = (frame: Frame): string => String(frame.payload.jobId).split('.')[0]!
const stateOf = (id: string, on: TestHub = h): string => on.hub.store.jobs.get(id)!.state
const tally = (ids: readonly string[], on: TestHub = h): Record<string, number> => {
  const counts: Record<string, number> = {}
  for (const id of ids) counts[stateOf(id, on)] = (counts[stateOf(id, on)] ?? 0) + 1
  return counts
}

describe('a printer whose agent holds as many jobs as it may', () => {
  test('its next jobs wait PENDING in the hub, then go once its agent has ' +
    'printed some: each once, in order', async () => {
    const credentials = await pair(h)
    const agent = await online(credentials, undefined, h)
    const remoteId = addPrinter(credentials.agentId, 'printer_fake_1', h)
    const printerId = h.hub.store.printers.resolve(h.projectId, remoteId)!.id
    const extra = 20
    const ids = await postJobs(remoteId, HELD_PER_PRINTER + extra)

    const held = await receive(agent, HELD_PER_PRINTER)
    await waitFor(() => tally(ids).DELIVERED === HELD_PER_PRINTER)
    expect(tally(ids)).toEqual({ DELIVERED: HELD_PER_PRINTER, PENDING: extra })
    // The oldest went, the newest wait; none of the waiting was sent or tried.
    expect(held.map(wireJob)).toEqual(ids.slice(0, HELD_PER_PRINTER))
    for (const id of ids.slice(HELD_PER_PRINTER))
      expect(h.hub.store.jobs.get(id)).toMatchObject({ state: 'PENDING', attemptCount: 0 })

    // The sweep looks again: still full, nothing goes (its look runs in the next turn).
    h.hub.dispatcher.sweep()
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setImmediate(resolve))
    expect(tally(ids)).toEqual({ DELIVERED: HELD_PER_PRINTER, PENDING: extra })
    expect(agent.all('server.print_job')).toHaveLength(HELD_PER_PRINTER)
    expect(h.hub.store.jobStates.heldCount(printerId, 10_000)).toBe(HELD_PER_PRINTER)

    // The agent prints its oldest tenth: the waiting jobs go, in order, each once.
    for (const frame of held.slice(0, HELD_PER_PRINTER / 10)) agent.jobSubmitted(frame)
    const later = await receive(agent, extra)
    expect(later.map(wireJob)).toEqual(ids.slice(HELD_PER_PRINTER))
    await waitFor(() => tally(ids).DELIVERED === HELD_PER_PRINTER - HELD_PER_PRINTER / 10 + extra)
    expect(tally(ids)).toEqual({
      COMPLETED: HELD_PER_PRINTER / 10,
      DELIVERED: HELD_PER_PRINTER - HELD_PER_PRINTER / 10 + extra,
    })
    const sent = agent.all('server.print_job').map((frame) => String(frame.payload.jobId))
    expect(new Set(sent).size).toBe(sent.length)
    expect(sent).toHaveLength(ids.length)
  }, 60_000)

  test('a job that leaves its agent without a report of how it ended frees its place at the next sweep', async () => {
    const credentials = await pair(c)
    const agent = await online(credentials, undefined, c)
    const remoteId = addPrinter(credentials.agentId, 'printer_fake_1', c)
    const ids = await postJobs(remoteId, HELD_PER_PRINTER + 1, c)
    const held = await receive(agent, HELD_PER_PRINTER)
    await waitFor(() => tally(ids, c).DELIVERED === HELD_PER_PRINTER)
    expect(stateOf(ids.at(-1)!, c)).toBe('PENDING')

    // An operator cancels the oldest; a stock agent never answers, so after the grace period the hub
    // takes it as cancelled, and its place goes to the waiting job.
    expect(c.hub.store.jobStates.cancel(wireJob(held[0]!))).toMatchObject({ kind: 'requested' })
    await agent.next('server.cancel_job', { timeoutMs: 2_000 })
    advance(31_000)
    const [last] = await receive(agent, 1)
    expect(wireJob(last!)).toBe(ids.at(-1)!)
    await waitFor(() => tally(ids, c).DELIVERED === HELD_PER_PRINTER)
    expect(tally(ids, c)).toEqual({ CANCELLED: 1, DELIVERED: HELD_PER_PRINTER })
  }, 60_000)
})
