// The whole lifecycle through the built-in agent: the in-process hub, its gateway and dispatcher,
// the agent on the in-memory pipe, and virtual printers that print, fail, stall or are offline.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Job } from '../../src/protocol/job.ts'
import { Store } from '../../src/store/store.ts'
import { setPrinterConnection } from '../support/fixtures.ts'
import { addBuiltinPrinter, jobBody, startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'
import { previewOf } from '../support/virtual.ts'

let t: TestHub
/** Added to the hub's clock, to move past expiry times without waiting. */
let offset = 0
beforeAll(async () => {
  t = await startTestHub({
    now: () => Date.now() + offset,
    env: { PRINTHUB_RETRY_INITIAL_MS: '100', PRINTHUB_RETRY_MAX_MS: '200' },
  })
})
afterAll(() => t.stop())

const job = (id: string) => t.hub.store.jobs.get(id)!
const until = (id: string, check: (job: Job) => boolean, timeoutMs = 5_000) =>
  waitFor(() => (check(job(id)) ? job(id) : undefined), timeoutMs)

describe('through the built-in agent', () => {
  test('a job goes PENDING → COMPLETED with every timestamp, and the printer got its bytes', async () => {
    const before = t.hub.virtualPrinters.printed('virtual').length
    const created = await submitJob(t, {
      document: { width: 80, sections: [{ type: 'text', value: 'Table 12' }, { type: 'cut' }] },
    })
    expect(created).toMatchObject({ state: 'PENDING', attemptCount: 0, receivedAt: null, submittedAt: null })
    const done = await until(created.id, (j) => j.state === 'COMPLETED')
    expect(done).toMatchObject({ attemptCount: 1, lastErrorCode: null, lastErrorMessage: null })
    expect(Date.parse(done.receivedAt!)).toBeGreaterThanOrEqual(Date.parse(done.createdAt))
    expect(Date.parse(done.submittedAt!)).toBeGreaterThanOrEqual(Date.parse(done.receivedAt!))
    expect(Date.parse(done.updatedAt)).toBeGreaterThanOrEqual(Date.parse(done.submittedAt!))
    const printed = t.hub.virtualPrinters.printed('virtual')
    expect(printed).toHaveLength(before + 1)
    const output = printed.at(-1)!
    expect([...output.bytes.subarray(0, 2)]).toEqual([0x1b, 0x40])
    expect(previewOf(output).text).toEqual(['Table 12', '', '', '', '', '[partial cut]'])
    expect(previewOf(output).receipt.warnings).toEqual([])
  })

  test('Chinese text and emoji print, drawn as a picture of their line', async () => {
    const created = await submitJob(t, {
      document: {
        width: 80,
        sections: [
          { type: 'text', value: '寿司 x2 😀' },
          { type: 'text', value: 'Merci' },
        ],
      },
    })
    await until(created.id, (j) => j.state === 'COMPLETED')
    expect(previewOf(t.hub.virtualPrinters.printed('virtual').at(-1)!).text).toEqual(['[image 576x30]', 'Merci'])
  })

  test('a slow printer shows DELIVERED while it prints, then COMPLETED', async () => {
    await addBuiltinPrinter(t, 'slow', 'virtual://slow?delay=800')
    const created = await submitJob(t, { printerId: 'slow' })
    const delivered = await until(created.id, (j) => j.state === 'DELIVERED')
    expect(delivered.receivedAt).not.toBeNull()
    expect(delivered.submittedAt).toBeNull()
    await until(created.id, (j) => j.state === 'COMPLETED')
  })

  test('jobs of one printer print in the order they were created', async () => {
    await addBuiltinPrinter(t, 'ordered', 'virtual://ordered')
    const jobs = []
    for (let i = 0; i < 20; i++)
      jobs.push(
        await submitJob(t, {
          printerId: 'ordered',
          document: { width: 80, sections: [{ type: 'text', value: `ticket ${i}` }] },
        }),
      )
    for (const j of jobs) await until(j.id, (x) => x.state === 'COMPLETED')
    const printed = t.hub.virtualPrinters.printed('ordered').map((o) => previewOf(o).text)
    expect(printed).toEqual(jobs.map((_, i) => [`ticket ${i}`]))
  })

  test('a failing printer: the job is retried with backoff and completes once the printer works', async () => {
    const printerId = await addBuiltinPrinter(t, 'flaky', 'virtual://flaky?mode=fail')
    const created = await submitJob(t, { printerId: 'flaky', maxAttempts: 10 })
    const failing = await until(created.id, (j) => j.attemptCount >= 2)
    expect(failing.lastErrorCode).toBe('printer.failed')
    expect(failing.lastErrorMessage).toContain('set to fail')
    setPrinterConnection(t.hub.store, printerId, 'virtual://flaky')
    const done = await until(created.id, (j) => j.state === 'COMPLETED')
    expect(done.attemptCount).toBeGreaterThanOrEqual(2)
    expect(done.attemptCount).toBeLessThan(10)
    expect(t.hub.virtualPrinters.printed('flaky')).toHaveLength(1)
  })

  test('a printer that keeps failing: FAILED with attemptCount = maxAttempts and the last error', async () => {
    await addBuiltinPrinter(t, 'broken', 'virtual://broken?mode=fail')
    const created = await submitJob(t, { printerId: 'broken', maxAttempts: 3 })
    const failed = await until(created.id, (j) => j.state === 'FAILED')
    expect(failed).toMatchObject({ attemptCount: 3, maxAttempts: 3, lastErrorCode: 'printer.failed' })
  })

  test('a document the printer cannot print fails at once, forfeiting the remaining attempts', async () => {
    // A private-use character: in no code page and in no font.
    const created = await submitJob(t, { document: { width: 80, sections: [{ type: 'text', value: 'menu \ue000' }] } })
    const failed = await until(created.id, (j) => j.state === 'FAILED')
    expect(failed).toMatchObject({ attemptCount: 5, maxAttempts: 5, lastErrorCode: 'render.unsupported_character' })
  })

  test('an offline printer holds its jobs while another printer keeps printing', async () => {
    await addBuiltinPrinter(t, 'dead', 'virtual://dead?mode=offline')
    const held = await submitJob(t, { printerId: 'dead' })
    const others = [await submitJob(t), await submitJob(t), await submitJob(t)]
    for (const other of others) await until(other.id, (j) => j.state === 'COMPLETED')
    expect(job(held.id)).toMatchObject({ state: 'PENDING', attemptCount: 0 })
  })

  test('a job still PENDING when expiresAt passes becomes EXPIRED', async () => {
    await addBuiltinPrinter(t, 'closed', 'virtual://closed?mode=offline')
    const created = await submitJob(t, { printerId: 'closed', expiresInMs: 10_000 })
    offset += 11_000
    const expired = await until(created.id, (j) => j.state === 'EXPIRED')
    expect(expired).toMatchObject({ attemptCount: 0, lastErrorCode: 'job.expired' })
    offset = 0
  })

  test('cancelling: a PENDING job at once; a job the agent holds, by the agent, before it prints', async () => {
    await addBuiltinPrinter(t, 'queue', 'virtual://queue?mode=offline')
    const pending = await submitJob(t, { printerId: 'queue' })
    expect(t.hub.store.jobStates.cancel(pending.id)).toMatchObject({ kind: 'cancelled', job: { state: 'CANCELLED' } })

    await addBuiltinPrinter(t, 'stall', 'virtual://stall?delay=5000')
    const printing = await submitJob(t, { printerId: 'stall' })
    const waiting = await submitJob(t, { printerId: 'stall' })
    await until(printing.id, (j) => j.state === 'DELIVERED')
    await until(waiting.id, (j) => j.state === 'DELIVERED')
    expect(t.hub.store.jobStates.cancel(waiting.id).kind).toBe('requested')
    expect(t.hub.store.jobStates.cancel(printing.id).kind).toBe('requested')
    await until(waiting.id, (j) => j.state === 'CANCELLED')
    await until(printing.id, (j) => j.state === 'CANCELLED')
    expect(t.hub.virtualPrinters.printed('stall')).toHaveLength(0)
    expect(t.hub.store.jobStates.cancel(printing.id).kind).toBe('finished')
  })

  test('a completed job cannot be cancelled', async () => {
    const created = await submitJob(t)
    await until(created.id, (j) => j.state === 'COMPLETED')
    expect(t.hub.store.jobStates.cancel(created.id)).toMatchObject({ kind: 'too_late', job: { state: 'COMPLETED' } })
  })
})

describe('a hub started after its jobs expired', () => {
  test('jobs whose time ran out while the hub was off are never printed: EXPIRED, before any dispatch', async () => {
    const first = await startTestHub({ events: () => {} })
    const dataDir = first.dataDir
    const agentId = first.hub.store.agents.builtin()!.id
    const printer = first.hub.store.printers.add({
      projectId: first.projectId,
      remoteId: 'night',
      name: null,
      connection: 'virtual://night?mode=offline',
      profile: 'generic-80mm',
      width: 80,
      agentId,
    })!
    const jobs: Job[] = []
    for (let i = 0; i < 3; i++) {
      const response = await first.request('POST', `/v1/projects/${first.projectId}/jobs`, {
        body: jobBody({ printerId: 'night', expiresInMs: 10_000 }),
      })
      jobs.push((await response.json()).job)
    }
    await first.hub.stop()
    // Overnight the printer came back; in the morning the hub starts, the jobs' time long gone.
    const store = Store.open({ dataDir, create: false, maxOpenJobsPerProject: 10 })
    setPrinterConnection(store, printer.id, 'virtual://night')
    store.close()
    const morning = await startTestHub({ dataDir, now: () => Date.now() + 60_000 })
    try {
      // The agent reports the printer online well before the first sweep; nothing goes out.
      await waitFor(
        () =>
          morning.hub.sessions.session(agentId)?.printers.get(printer.agentPrinterId)?.availability !== undefined ||
          undefined,
        5_000,
      )
      for (const created of jobs) {
        await waitFor(() => (morning.hub.store.jobs.get(created.id)!.state === 'EXPIRED' ? true : undefined), 5_000)
        expect(morning.hub.store.jobs.get(created.id)).toMatchObject({
          state: 'EXPIRED',
          attemptCount: 0,
          lastErrorCode: 'job.expired',
        })
      }
      expect(morning.hub.virtualPrinters.printed('night')).toHaveLength(0)
    } finally {
      await morning.stop()
    }
  })
})

describe('stopping the hub while a ticket is being written', () => {
  test('the ticket is finished, not cut off; after a restart the job is COMPLETED and printed once', async () => {
    const first = await startTestHub({ events: () => {} })
    const agentId = first.hub.store.agents.builtin()!.id
    first.hub.store.printers.add({
      projectId: first.projectId,
      remoteId: 'slow',
      name: null,
      connection: 'virtual://slow?delay=700',
      profile: 'generic-80mm',
      width: 80,
      agentId,
    })
    await waitFor(() => first.hub.sessions.session(agentId)?.printers.size === 2, 5_000)
    const response = await first.request('POST', `/v1/projects/${first.projectId}/jobs`, {
      body: jobBody({ printerId: 'slow' }),
    })
    const created: Job = (await response.json()).job
    // Being written: the agent has it and the printer has not finished taking it.
    await waitFor(() => first.hub.store.jobs.get(created.id)!.state === 'DELIVERED', 5_000)
    expect(first.hub.virtualPrinters.printed('slow')).toHaveLength(0)
    const stopping = performance.now()
    await first.hub.stop()
    // Stopping waited for the printer instead of cutting the ticket off.
    expect(first.hub.virtualPrinters.printed('slow')).toHaveLength(1)
    expect(performance.now() - stopping).toBeLessThan(5_000)

    const again = await startTestHub({ dataDir: first.dataDir, events: () => {} })
    try {
      await waitFor(() => again.hub.store.jobs.get(created.id)!.state === 'COMPLETED' || undefined, 5_000)
      expect(again.hub.virtualPrinters.printed('slow')).toHaveLength(0)
    } finally {
      await again.stop()
    }
  })
})
