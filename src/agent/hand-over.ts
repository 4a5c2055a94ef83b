// A rendered job handed to its printer in the order that keeps a crash's uncertainty small: the
// printer is reached and asked its status first, then the intent to print is recorded and
// flushed, then the job's hand-over mark is written and the bytes go. A crash before the intent's
// commit leaves the job `received` (sent again after a restart, never failed as uncertain), and so
// does a crash of the process alone before the mark (hand-over-marks.ts); what is left uncertain
// is the write itself.
//
// The flush: while no other printer of the agent is at work, on the spot (the first byte follows
// in the same turn, the soonest it can); while others are, on the thread pool, at once and beside
// any flush running, so that their work goes on meanwhile (measured: a quarter more jobs a second
// across four printers; one printer's first byte about 0.5 ms later, so not for one). When the
// printer's previous job's record waits (held-records.ts), the intent is committed and flushed on
// the thread pool, and that record is made during the flush. On a cluster's node the intent is
// recorded in the cluster's database too, under the printer's lease, after the flush (`intents`):
// refused, nothing is sent.
import type { Connection } from '../domain/connection-uri.ts'
import { failure } from '../protocol/failures.ts'
import { readyPrinter, type Transports } from '../transports/submit.ts'
import type { PrinterModel, SubmitOutcome } from '../transports/submission.ts'
import type { AgentLedger } from './agent-ledger.ts'
import type { LedgerJob } from './ledger-rows.ts'

/** A job to hand over: its bytes, the printer to reach, and what the agent provides. */
export interface HandOver {
  job: LedgerJob
  bytes: Uint8Array
  connection: Connection
  model: PrinterModel
  ledger: AgentLedger
  transports: Transports
  signal: AbortSignal
  /** Whether the agent is stopping. */
  stopping: () => boolean
  /** Whether other printers of the agent are at work now. */
  othersAtWork: () => boolean
  /** The printer's last printed job's record, when it waits to be made during this intent's flush (held-records.ts). */
  meanwhile?: () => (() => void) | undefined
  /** Where the intent is recorded too, after the ledger's flush (a cluster's database): false, and nothing is sent. */
  intents?: IntentRecorder | undefined
}

/**
 * Records a job's intent to print besides the agent's ledger, before the first byte: a cluster node's database, under
 * the printer's lease (hub/node-agent.ts). False when it could not: the job is then not printed.
 */
export type IntentRecorder = (job: LedgerJob) => Promise<boolean>

/** The job's intent could not be recorded where it must be: nothing of it was sent. */
const INTENT_NOT_RECORDED: SubmitOutcome = {
  ok: false,
  failure: failure(
    'agent.lease_lost',
    "This node of the cluster could not record its intent to print under the printer's lease; nothing was printed.",
  ),
}

/**
 * What came of handing the job over; undefined when nothing is to be reported: the agent is
 * stopping (the job stays `received` for the next start), or the job was cancelled or finished
 * otherwise while its printer was reached (it gets nothing).
 */
export async function handOver({
  job,
  bytes,
  connection,
  model,
  ledger,
  transports,
  signal,
  stopping,
  othersAtWork,
  meanwhile,
  intents,
}: HandOver): Promise<SubmitOutcome | undefined> {
  const ready = await readyPrinter(connection, signal, transports, model)
  if (!ready.ok) return 'cancelled' in ready && stopping() ? undefined : ready
  if (!ledger.claim(job.seq)) {
    ready.printer.release()
    return undefined
  }
  try {
    const record = meanwhile?.()
    if (record) {
      const flushed = ledger.claimFlushing()
      record()
      await flushed
    } else if (othersAtWork()) await ledger.claimDurable()
    else ledger.flushNow()
    if (intents && !(await intents(job).catch(() => false))) {
      ready.printer.release()
      return INTENT_NOT_RECORDED
    }
    ledger.handingOver(job)
  } catch (error) {
    ready.printer.release()
    throw error
  }
  // Marked printed the moment the printer says so (hand-over-marks.ts), before the turns that record
  // it; in the callback that reads the printer's answer, which must not throw (a mark that cannot be
  // written ends the trust in this run's marks, marks-run.ts, and the agent goes on to record the job).
  const markPrinted = () => {
    try {
      ledger.printed(job)
    } catch {
      // The ledger's settings could not be written either: the record that follows meets the same disk.
    }
  }
  return ready.printer.send(bytes, signal, markPrinted)
}
