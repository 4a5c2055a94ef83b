// A test hub for printers that poll it: the admin API as its owner, adopting a printer (and waiting
// until the built-in agent serves it), a job as the public API says it, and a receipt of lines.
import { expect } from 'bun:test'
import type { Job } from '../../src/protocol/job.ts'
import { adminToken } from './fixtures.ts'
import type { TestHub } from './hub.ts'
import { waitFor } from './wait.ts'

export function pollingHub(hub: TestHub) {
  const owner = adminToken(hub.hub.store, 'owner')
  const admin = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${hub.url}/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${owner}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as T }
  }
  const job = async (id: string): Promise<Job> =>
    ((await (await hub.request('GET', `/v1/projects/${hub.projectId}/jobs/${id}`)).json()) as { job: Job }).job
  return {
    admin,
    job,
    /**
     * Adopts the printer known by `key` as `id`; its record ID, once the built-in agent serves it (its catalog's poll,
     * a second).
     */
    async adopt(key: string, id: string, kind?: 'cloudprnt' | 'epson-sdp'): Promise<string> {
      const adopted = await admin<{ printer: { id: string } }>('POST', '/printers/adopt', {
        ...(kind ? { kind } : {}),
        printer: key,
        projectId: hub.projectId,
        id,
      })
      expect(adopted.status).toBe(201)
      await waitFor(
        () => hub.hub.sessions.session(hub.hub.store.agents.builtin()!.id)?.printers.has(adopted.body.printer.id),
        5_000,
      )
      return adopted.body.printer.id
    },
    /** Waits until the printer the project calls `remoteId` shows `state` on the admin API. */
    async untilState(remoteId: string, state: string): Promise<void> {
      await waitFor(
        async () =>
          (await admin<{ printers: { remoteId: string; state: string }[] }>('GET', '/printers')).body.printers.find(
            (p) => p.remoteId === remoteId,
          )?.state === state,
        5_000,
      )
    },
    /** The job once it is COMPLETED or FAILED. */
    settled: (id: string): Promise<Job> =>
      waitFor(async () => {
        const found = await job(id)
        return found.state === 'COMPLETED' || found.state === 'FAILED' ? found : undefined
      }, 10_000),
  }
}

/** A document of text lines and a cut. */
export const receipt = (lines: string[]) => ({
  width: 80,
  sections: [...lines.map((value) => ({ type: 'text', value })), { type: 'cut' }],
})

/**
 * Runs `poll` every `intervalMs`, one at a time, a failed one let be (the printer polls again next time), as a printer
 * does; stops when told.
 */
export function pollEvery(intervalMs: number, poll: () => Promise<unknown>): () => void {
  let busy = false
  const tick = async () => {
    if (busy) return
    busy = true
    try {
      await poll()
    } catch {
      // Refused or not answered: the printer polls again next time.
    } finally {
      busy = false
    }
  }
  void tick()
  const timer = setInterval(tick, intervalMs)
  return () => clearInterval(timer)
}
