// An application's cancellation waits for the agent's answer (services/jobs.ts): how the answer is heard on each
// store, and how the cancellation is asked of the agent.
import { parseConnectionUri, polls } from '../domain/connection-uri.ts'
import { type CancelRequest, JOB_STATE_SETS } from '../domain/job-transitions.ts'
import type { PrinterRecord } from '../domain/records.ts'
import type { JobState } from '../protocol/job.ts'
import type { UnitRunner } from '../storage/repositories.ts'
import type { Store } from '../store/store.ts'

/** States in which an asked-for cancellation is still open: the agent may yet stop the job. */
export const CANCEL_OPEN: readonly JobState[] = JOB_STATE_SETS.cancellableByAgent
/** How often a cancellation on PostgreSQL reads its job again while it waits for the agent's answer. */
const ANSWER_POLL_MS = 100

/**
 * Settles once job `jobId` leaves the states in which its agent may still stop it: told at once by the SQLite
 * store, where every report is this process's; read again every ANSWER_POLL_MS on PostgreSQL, where the node that
 * holds the job's agent may be another.
 */
export function answerOf(
  units: UnitRunner,
  sqlite: Store | undefined,
  jobId: string,
): { settled: Promise<void>; stop(): void } {
  let answered: () => void = () => {}
  const settled = new Promise<void>((resolve) => (answered = resolve))
  if (sqlite) {
    const stop = sqlite.jobChanges.listen((_, changed) => {
      if (changed.id === jobId && !CANCEL_OPEN.includes(changed.state)) answered()
    })
    return { settled, stop }
  }
  let stopped = false
  const poll = async (): Promise<void> => {
    while (!stopped) {
      await Bun.sleep(ANSWER_POLL_MS)
      const job = stopped ? undefined : await units.read((db) => db.jobs.get(jobId))
      if (job && !CANCEL_OPEN.includes(job.state)) return answered()
    }
  }
  // A read that fails (the database away) ends the watch: the wait runs out, and the job is read once more.
  poll().catch(() => {})
  return { settled, stop: () => void (stopped = true) }
}

/**
 * How an application's cancellation is asked of the agent: for a printer that polls, until the printer fetched the
 * job; else until the agent holds it.
 */
export function applicationCancel(printer: PrinterRecord | undefined): CancelRequest {
  const parsed = printer ? parseConnectionUri(printer.connection) : undefined
  return parsed?.ok && polls(parsed.connection) ? 'requestCancelUnfetched' : 'requestCancelInFlight'
}
