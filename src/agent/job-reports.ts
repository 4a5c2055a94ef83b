// The frames an agent reports a job's progress and end with (OpenPrinter v1 section 7.3 and
// printhub's extensions), each encoded once: the ledger keeps them, and replays after a
// reconnection send exactly these bytes (same messageId, the job's source message). For a hub in
// this process (`hubInProcess`: the built-in agent's), which checks each frame it reads, they are
// not checked on the way out as well (protocol/codec.ts).
import { encodeFrame } from '../protocol/codec.ts'
import { printhubAgentMessageRule, type PrinthubAgentMessage } from '../protocol/extensions.ts'
import { type Failure, failure } from '../protocol/failures.ts'
import { MAX_FRAME_BYTES } from '../protocol/limits.ts'
import { agentFrame } from './connection.ts'
import type { LedgerJob } from './ledger-rows.ts'

type ReportType = 'agent.job_submitted' | 'agent.job_failed' | 'printhub.job_completed' | 'printhub.job_cancelled'

function report<T extends ReportType>(
  type: T,
  job: LedgerJob,
  rest: Omit<Extract<PrinthubAgentMessage, { type: T }>['payload'], 'jobId' | 'idempotencyKey'>,
  hubInProcess = false,
): string {
  const payload = { jobId: job.jobId, idempotencyKey: job.idempotencyKey, ...rest }
  return encodeFrame(
    printhubAgentMessageRule,
    agentFrame(type, payload as never, job.sourceMessageId),
    MAX_FRAME_BYTES,
    hubInProcess,
  )
}

const now = () => new Date().toISOString()

/**
 * Every byte is with the printer (since `at`: a report made later says when), which is yet to confirm it printed them.
 */
export const submittedReport = (job: LedgerJob, hubInProcess?: boolean, at = now()) =>
  report('agent.job_submitted', job, { printerId: job.printerId, status: 'submitted', submittedAt: at }, hubInProcess)

/**
 * The printer printed the job (at `at`: a record held for later says when, held-records.ts). With
 * `submittedAt`, the job's only report since its receipt: it also says when every byte was taken.
 */
export const completedReport = (job: LedgerJob, hubInProcess?: boolean, at = now(), submittedAt?: string) =>
  report(
    'printhub.job_completed',
    job,
    submittedAt === undefined
      ? { printerId: job.printerId, completedAt: at }
      : { printerId: job.printerId, completedAt: at, submittedAt },
    hubInProcess,
  )

/** A printed job's end: when its printer printed it and took its bytes, and whether the hub was told the latter. */
export interface Completion {
  reportedSubmitted: boolean
  completedAt: string
  submittedAt: string
}

/**
 * How a printed job's end is told: after its submission was (`reportedSubmitted`), or with it. A
 * hub in this process hears it in one report (one state change fewer: the hub's CPU); any other
 * hub hears OpenPrinter's submission first, the frame a stock hub understands.
 */
export function completionReports(
  job: LedgerJob,
  hubInProcess: boolean,
  { reportedSubmitted, completedAt, submittedAt }: Completion,
): string[] {
  if (reportedSubmitted) return [completedReport(job, hubInProcess, completedAt)]
  if (hubInProcess) return [completedReport(job, hubInProcess, completedAt, submittedAt)]
  return [submittedReport(job, hubInProcess, submittedAt), completedReport(job, hubInProcess, completedAt)]
}

export const cancelledReport = (job: LedgerJob, hubInProcess?: boolean) =>
  report('printhub.job_cancelled', job, { cancelledAt: now() }, hubInProcess)

export function failedReport(job: LedgerJob, reason: Failure, hubInProcess?: boolean): string {
  const { code, message, retryable } = failure(reason.code, reason.message, reason.retryable)
  return report(
    'agent.job_failed',
    job,
    { status: 'failed', failedAt: now(), error: { code, message, retryable } },
    hubInProcess,
  )
}
