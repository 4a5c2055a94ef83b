// The dispatcher (src/dispatcher/dispatcher.ts), end to end, when an attempt does not go straight
// through: retries (ack timeouts, reported failures, dropped connections, late reports), operators'
// cancellations and expiry under a clock the test moves, and a hub restart with an attempt out. The
// agent is a stock OpenPrinter v1 agent, built from the protocol reference alone
// (test/support/fake-agent.ts), over a real WebSocket; every frame the hub sends is checked against
// the official JSON Schema and the wire rules as it arrives, and each test asserts real outcomes
// (job states in the store, the frames on the wire). The happy path is in dispatcher.test.ts.
import { describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { virtualPrinter } from '../support/fake-agent.ts'
import { printJobFor, useGatewayHub, WIRE_ID } from '../support/gateway-fixtures.ts'
import { type TestHub, tempDir } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

const { agents, pair, connect, online, addPrinter, postJob, job, waitForState, sync, startHub, clockedHub } =
  useGatewayHub()

describe('retries', () => {
  test(
    'an unacknowledged attempt times out and is retried under a new wire ' + 'identity, otherwise identical',
    async () => {
      const credentials = await pair()
      const agent = await online(credentials)
      const created = await postJob(addPrinter(credentials.agentId), { metadata: { table: '4' } })
      const first = await printJobFor(agent, `${created.id}.a1`)
      // No acknowledgement: after the ack timeout (1 s) the attempt fails and the job waits its backoff.
      await waitFor(() => job(created.id).lastErrorCode === 'agent.ack_timeout', 3_000)
      const second = await printJobFor(agent, `${created.id}.a2`, 3_000)
      expect(second.payload).toEqual({
        ...first.payload,
        jobId: `${created.id}.a2`,
        idempotencyKey: `${created.id}.a2`,
      })
      expect(second.payload.createdAt).toBe(first.payload.createdAt)
      expect(JSON.stringify(second.payload.document)).toBe(JSON.stringify(first.payload.document))
      expect(second.messageId).not.toBe(first.messageId)
      expect(job(created.id)).toMatchObject({
        state: 'DISPATCHING',
        attemptCount: 2,
        lastErrorCode: 'agent.ack_timeout',
      })

      agent.jobReceived(second)
      agent.jobSubmitted(second)
      expect(await waitForState(created.id, 'COMPLETED')).toMatchObject({
        attemptCount: 2,
        receivedAt: expect.any(String),
        submittedAt: expect.any(String),
      })
    },
  )

  test('a retryable failure goes back to PENDING, then the next attempt comes after the backoff', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId))
    const first = await printJobFor(agent, `${created.id}.a1`)
    agent.jobReceived(first)
    await waitForState(created.id, 'DELIVERED')
    const failedAt = performance.now()
    agent.jobFailed(first, { code: 'spooler.failed', message: 'The printer did not answer.', retryable: true })
    expect(await waitForState(created.id, 'PENDING')).toMatchObject({
      attemptCount: 1,
      lastErrorCode: 'spooler.failed',
      lastErrorMessage: 'The printer did not answer.',
    })
    await printJobFor(agent, `${created.id}.a2`)
    // The backoff is 400 ms ± 20 %: the hub may not send earlier.
    expect(
      agent.received.find((r) => r.frame.payload?.jobId === `${created.id}.a2`)!.at - failedAt,
    ).toBeGreaterThanOrEqual(300)
    expect(job(created.id)).toMatchObject({ state: 'DISPATCHING', attemptCount: 2 })
  })

  test('with maxAttempts 2, two retryable failures end FAILED with attemptCount 2', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId), { maxAttempts: 2 })
    const first = await printJobFor(agent, `${created.id}.a1`)
    agent.jobReceived(first)
    agent.jobFailed(first, { code: 'spooler.failed', message: 'Paper out.', retryable: true })
    const second = await printJobFor(agent, `${created.id}.a2`)
    agent.jobReceived(second)
    agent.jobFailed(second, { code: 'printer.disabled', message: 'The printer is disabled.', retryable: true })
    expect(await waitForState(created.id, 'FAILED')).toMatchObject({
      attemptCount: 2,
      maxAttempts: 2,
      lastErrorCode: 'printer.disabled',
    })
    await sync(agent)
    expect(agent.all('server.print_job').filter((f) => f.payload.jobId.startsWith(created.id)).length).toBe(2)
  })

  test('a non-retryable failure ends FAILED at once and forfeits the remaining attempts', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId), { maxAttempts: 4 })
    const first = await printJobFor(agent, `${created.id}.a1`)
    agent.jobReceived(first)
    agent.jobFailed(first, { code: 'render.failed', message: 'The image cannot be decoded.', retryable: false })
    expect(await waitForState(created.id, 'FAILED')).toMatchObject({
      attemptCount: 4,
      maxAttempts: 4,
      lastErrorCode: 'render.failed',
    })
    await sync(agent)
    expect(agent.all('server.print_job').filter((f) => f.payload.jobId.startsWith(created.id)).length).toBe(1)
  })

  test('a late submission of attempt 1 while attempt 2 is out completes the job and cancels attempt 2', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId))
    const first = await printJobFor(agent, `${created.id}.a1`)
    const second = await printJobFor(agent, `${created.id}.a2`, 4_000)
    agent.jobSubmitted(first)
    expect(await waitForState(created.id, 'COMPLETED')).toMatchObject({ attemptCount: 2 })
    const cancel = await agent.next('server.cancel_job')
    expect(cancel.payload).toEqual({ jobId: second.payload.jobId, reason: expect.any(String) })
  })
  test(
    'a late completion of attempt 1 that also tells its submission (a ' +
      "printhub agent's one report) while attempt 2 is out: COMPLETED, and " +
      'attempt 2 is cancelled',
    async () => {
      const credentials = await pair()
      const agent = await connect(credentials)
      expect((await agent.authenticate()).type).toBe('auth.accepted')
      await agent.hello({ productId: 'printhub' })
      await agent.inventory([virtualPrinter('printer_fake_1')])
      const created = await postJob(addPrinter(credentials.agentId))
      const first = await printJobFor(agent, `${created.id}.a1`)
      const second = await printJobFor(agent, `${created.id}.a2`, 4_000)
      const { jobId, idempotencyKey, printerId } = first.payload
      const submittedAt = new Date(Date.now() - 50).toISOString()
      agent.send(
        agent.envelope(
          'printhub.job_completed',
          { jobId, idempotencyKey, printerId, completedAt: new Date().toISOString(), submittedAt },
          first.messageId,
        ),
      )
      expect(await waitForState(created.id, 'COMPLETED')).toMatchObject({ attemptCount: 2, submittedAt })
      const cancel = await agent.next('server.cancel_job')
      expect(cancel.payload).toEqual({ jobId: second.payload.jobId, reason: expect.any(String) })
    },
  )

  test('an agent that drops the connection before acknowledging gets the job again, as a new attempt', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId))
    await printJobFor(agent, `${created.id}.a1`)
    await agent.close()
    // The hub cannot know whether the agent stored it: the attempt failed, retryably.
    expect(
      await waitFor(() => job(created.id).lastErrorCode === 'agent.disconnected' && job(created.id)),
    ).toMatchObject({ state: 'PENDING', attemptCount: 1 })
    const again = await online(credentials)
    const second = await printJobFor(again, `${created.id}.a2`)
    again.jobReceived(second)
    again.jobSubmitted(second)
    expect(await waitForState(created.id, 'COMPLETED')).toMatchObject({ attemptCount: 2 })
  })

  test('jobs of one printer go out in creation order, the next once the agent has received the previous', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const remoteId = addPrinter(credentials.agentId)
    const first = await postJob(remoteId)
    const second = await postJob(remoteId)
    const firstJob = await printJobFor(agent, `${first.id}.a1`)
    await sync(agent)
    expect(job(second.id)).toMatchObject({ state: 'PENDING', attemptCount: 0 })
    expect(agent.all('server.print_job').length).toBe(1)
    agent.jobReceived(firstJob)
    const secondJob = await printJobFor(agent, `${second.id}.a1`)
    agent.jobReceived(secondJob)
    agent.jobSubmitted(firstJob)
    agent.jobSubmitted(secondJob)
    await waitForState(first.id, 'COMPLETED')
    await waitForState(second.id, 'COMPLETED')
  })

  // A late failure of attempt 1, while attempt 2 is out, must leave attempt 2's ack timeout armed:
  // otherwise an unanswered attempt 2 would hold its printer's queue for good.
  test('a late failure of an earlier attempt does not disarm the ack timeout of the current one', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId))
    const first = await printJobFor(agent, `${created.id}.a1`)
    // OPPA stored attempt 1 but was slow to say so (it works one job at a time); the hub tried again.
    await printJobFor(agent, `${created.id}.a2`, 4_000)
    agent.jobFailed(first, { code: 'spooler.failed', message: 'The printer did not answer.', retryable: true })
    // Attempt 2 is never acknowledged either: after the ack timeout (1 s) and the backoff, attempt 3
    // must come. (No inventory barrier here: a new inventory wakes the queue and hides the bug.)
    await printJobFor(agent, `${created.id}.a3`, 4_000)
  }, 10_000)
})

describe('with a clock the test moves', () => {
  const { h, advance } = clockedHub()

  test(
    'cancelling a dispatched job: server.cancel_job with the wire ID, then ' + 'CANCELLED after the grace period',
    async () => {
      const credentials = await pair(h)
      const agent = await online(credentials, undefined, h)
      const created = await postJob(addPrinter(credentials.agentId, 'printer_fake_1', h), {}, h)
      const wireId = `${created.id}.a1`
      const printJob = await printJobFor(agent, wireId)
      agent.jobReceived(printJob)
      await waitForState(created.id, 'DELIVERED', 3_000, h)

      expect(h.hub.store.jobStates.cancel(created.id)).toMatchObject({ kind: 'requested' })
      const cancel = await agent.next('server.cancel_job', { timeoutMs: 2_000 })
      expect(cancel.payload).toEqual({ jobId: wireId, reason: 'Cancelled by an operator.' })
      expect(cancel.payload.jobId).toMatch(WIRE_ID)
      // A stock agent never answers; until the grace period (30 s) is over, the job stays as it was.
      expect(job(created.id, h).state).toBe('DELIVERED')
      advance(31_000)
      const cancelled = await waitForState(created.id, 'CANCELLED', 2_000, h)
      expect(cancelled.attemptCount).toBe(1)
      // Asked once.
      expect(agent.all('server.cancel_job').length).toBe(1)
    },
  )

  test('a submission that beats the cancellation wins: COMPLETED', async () => {
    const credentials = await pair(h)
    const agent = await online(credentials, undefined, h)
    const created = await postJob(addPrinter(credentials.agentId, 'printer_fake_1', h), {}, h)
    const printJob = await printJobFor(agent, `${created.id}.a1`)
    agent.jobReceived(printJob)
    await waitForState(created.id, 'DELIVERED', 3_000, h)
    expect(h.hub.store.jobStates.cancel(created.id)).toMatchObject({ kind: 'requested' })
    await agent.next('server.cancel_job', { timeoutMs: 2_000 })
    agent.jobSubmitted(printJob)
    await waitForState(created.id, 'COMPLETED', 3_000, h)
    advance(31_000)
    await sync(agent, h)
    // A sweep after the grace period must not turn it into CANCELLED.
    h.hub.dispatcher.sweep()
    expect(job(created.id, h).state).toBe('COMPLETED')
  })

  test('a job that expires while dispatched: EXPIRED, and the agent is asked to cancel it', async () => {
    const credentials = await pair(h)
    const agent = await online(credentials, undefined, h)
    const created = await postJob(addPrinter(credentials.agentId, 'printer_fake_1', h), { expiresInMs: 10_000 }, h)
    const wireId = `${created.id}.a1`
    const printJob = await printJobFor(agent, wireId)
    advance(11_000)
    const cancel = await agent.next('server.cancel_job', { timeoutMs: 2_000 })
    expect(cancel.payload).toEqual({ jobId: wireId, reason: 'The job expired.' })
    expect(job(created.id, h)).toMatchObject({ state: 'EXPIRED', lastErrorCode: 'job.expired', attemptCount: 1 })
    // Reports that come after are too late to change it.
    agent.jobReceived(printJob)
    await sync(agent, h)
    expect(job(created.id, h).state).toBe('EXPIRED')
  })
})

describe('a hub restart', () => {
  test('an attempt out when the hub stopped is sent again byte for byte, and completes', async () => {
    const dataDir = tempDir()
    const first = await startHub({ dataDir })
    let firstRunning = true
    let second: TestHub | undefined
    try {
      const credentials = await pair(first)
      const agent = await online(credentials, undefined, first)
      const created = await postJob(addPrinter(credentials.agentId, 'printer_fake_1', first), {}, first)
      const before = await printJobFor(agent, `${created.id}.a1`)
      const beforeText = agent.received.find((r) => r.frame === before)!.text
      await first.hub.stop()
      firstRunning = false
      const shutdown = await agent.next('server.disconnect')
      expect(shutdown.payload).toEqual({
        code: 'server_shutdown',
        reason: expect.any(String),
        reconnect: true,
        retryAfterMs: 1000,
      })
      expect((await agent.closed()).code).toBe(4400)

      second = await startHub({ dataDir })
      const again = await online(credentials, undefined, second)
      const after = await printJobFor(again, `${created.id}.a1`)
      expect(again.received.find((r) => r.frame === after)!.text).toBe(beforeText)
      again.jobReceived(after)
      again.jobSubmitted(after)
      expect(await waitForState(created.id, 'COMPLETED', 3_000, second)).toMatchObject({ attemptCount: 1 })
    } finally {
      await Promise.all(agents.map((a) => a.close()))
      if (firstRunning) await first.stop()
      else if (second) await second.stop()
      else rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
