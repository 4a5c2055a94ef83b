// Jobs an agent holds (DELIVERED, PRINTING) when that agent is revoked or never comes back: they
// end in an honest terminal state in the documented time (FAILED job.recovery_uncertain: they may
// have printed), also across a hub restart, and never while the agent may still report. A stock
// OpenPrinter v1 agent over a real WebSocket, a real hub with a clock the test moves.
import { describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { AGENT_RETURN_GRACE_MS } from '../../src/hub/start.ts'
import { Store } from '../../src/store/store.ts'
import { printJobFor, useGatewayHub } from '../support/gateway-fixtures.ts'
import { type TestHub, tempDir } from '../support/hub.ts'

const { agents, pair, online, addPrinter, postJob, job, waitForState, startHub, clockedHub } = useGatewayHub()

const EXPIRES_IN_MS = 60_000

describe('with a clock the test moves', () => {
  const { h, advance } = clockedHub()

  /** A job the agent confirmed it holds, and the agent. */
  async function held(options: { cancelled?: boolean } = {}) {
    const credentials = await pair(h)
    const agent = await online(credentials, undefined, h)
    const created = await postJob(
      addPrinter(credentials.agentId, 'printer_fake_1', h),
      { expiresInMs: EXPIRES_IN_MS },
      h,
    )
    agent.jobReceived(await printJobFor(agent, `${created.id}.a1`))
    await waitForState(created.id, 'DELIVERED', 3_000, h)
    if (options.cancelled) {
      expect(h.hub.store.jobStates.cancel(created.id)).toMatchObject({ kind: 'requested' })
      await agent.next('server.cancel_job', { timeoutMs: 2_000 })
    }
    return { credentials, agent, jobId: created.id }
  }

  test('cancelled just before its agent was replaced, then revoked: FAILED as uncertain within a sweep', async () => {
    const { credentials, jobId } = await held({ cancelled: true })
    // The agent connects again (the older session is replaced), then is revoked, as by the CLI.
    await online(credentials, undefined, h)
    h.hub.store.agents.revoke(credentials.agentId)
    const failed = await waitForState(jobId, 'FAILED', 2_000, h)
    expect(failed).toMatchObject({ lastErrorCode: 'job.recovery_uncertain', attemptCount: failed.maxAttempts })
    expect(failed.lastErrorMessage).toContain('was revoked before it said how the job ended')
  })

  test(
    'an agent that went away: its job waits while it may come back, and ends ' +
      'FAILED once it expired and the agent stayed away',
    async () => {
      const { agent, jobId } = await held()
      await agent.close()
      // Expired, but the agent has been away for less than the grace: it may still be on its way.
      advance(EXPIRES_IN_MS + 1_000)
      h.hub.dispatcher.sweep()
      expect(job(jobId, h).state).toBe('DELIVERED')
      advance(AGENT_RETURN_GRACE_MS)
      h.hub.dispatcher.sweep()
      expect(job(jobId, h)).toMatchObject({ state: 'FAILED', lastErrorCode: 'job.recovery_uncertain' })
      expect(job(jobId, h).lastErrorMessage).toContain('has not come back since the job expired')
    },
  )

  test('an agent that stays connected keeps its jobs, however long they take', async () => {
    const { jobId } = await held()
    advance(EXPIRES_IN_MS + AGENT_RETURN_GRACE_MS + 1_000)
    h.hub.dispatcher.sweep()
    expect(job(jobId, h).state).toBe('DELIVERED')
  })
})

describe('across a hub restart', () => {
  test(
    'revoked while the hub was stopped: FAILED at the first sweep; gone for ' +
      'good: FAILED once the grace after the start is over',
    async () => {
      const dataDir = tempDir()
      let offset = 0
      const first = await startHub({ dataDir, now: () => Date.now() + offset })
      let firstRunning = true
      let second: TestHub | undefined
      try {
        const revokedAgent = await pair(first)
        const goneAgent = await pair(first)
        const jobs: string[] = []
        for (const credentials of [revokedAgent, goneAgent]) {
          const agent = await online(credentials, undefined, first)
          const created = await postJob(
            addPrinter(credentials.agentId, 'printer_fake_1', first),
            { expiresInMs: EXPIRES_IN_MS },
            first,
          )
          agent.jobReceived(await printJobFor(agent, `${created.id}.a1`))
          await waitForState(created.id, 'DELIVERED', 3_000, first)
          jobs.push(created.id)
        }
        await first.hub.stop()
        firstRunning = false
        await Promise.all(agents.map((a) => a.closed()))
        const offline = Store.open({ dataDir, create: false, maxOpenJobsPerProject: 10_000 })
        offline.agents.revoke(revokedAgent.agentId)
        offline.close()

        // The hub starts again after the jobs expired; neither agent comes back.
        offset += EXPIRES_IN_MS + 1_000
        second = await startHub({ dataDir, now: () => Date.now() + offset })
        const [revokedJob, goneJob] = jobs as [string, string]
        expect(await waitForState(revokedJob, 'FAILED', 2_000, second)).toMatchObject({
          lastErrorCode: 'job.recovery_uncertain',
        })
        second.hub.dispatcher.sweep()
        expect(job(goneJob, second).state).toBe('DELIVERED')
        offset += AGENT_RETURN_GRACE_MS
        second.hub.dispatcher.sweep()
        expect(job(goneJob, second)).toMatchObject({ state: 'FAILED', lastErrorCode: 'job.recovery_uncertain' })
      } finally {
        if (firstRunning) await first.stop()
        else if (second) await second.stop()
        else rmSync(dataDir, { recursive: true, force: true })
      }
    },
  )
})
