// What the agent (agent.ts) asks of its ledger, either one: a remote agent's, in its own file
// (ledger.ts), or the built-in agent's, in its hub's database (builtin-ledger.ts); what receiving a
// job answers; and the bounds both keep.
import type { Ledger } from './ledger.ts'
import type { LedgerJob } from './ledger-rows.ts'

/** Reports read from the outbox at a time. */
export const OUTBOX_PAGE = 256

/**
 * A job resumed this often (crashes that keep coming at the same step) is left uncertain instead: never a loop of
 * crashes.
 */
export const MAX_RESUMES = 3

/**
 * Finished jobs the ledger remembers, the newest by number, for duplicate checks and to answer a
 * hub that asks again; older ones are forgotten (an unfinished one never is). Counted among the
 * finished ones: jobs received since, and not yet printed, may be many more (a backlog).
 */
export const RETAINED_FINISHED_JOBS = 10_000

export type ReceiveOutcome =
  | { kind: 'new'; job: LedgerJob }
  /** The same job again: acknowledge it again, do nothing else. */
  | { kind: 'duplicate'; job: LedgerJob }
  /** A job ID or idempotency key reused for something else: no answer (reference 7.4). */
  | { kind: 'conflict'; reason: string }

/** What the agent asks of a ledger (the methods of a remote agent's, which the built-in agent's has too). */
export type AgentLedger = Pick<
  Ledger,
  | 'tellsHubAtOnce'
  | 'durable'
  | 'claimDurable'
  | 'claimFlushing'
  | 'flushNow'
  | 'close'
  | 'receive'
  | 'job'
  | 'nextReceived'
  | 'nextAfter'
  | 'unreportedJobs'
  | 'printersWithWork'
  | 'claim'
  | 'finish'
  | 'recover'
  | 'handingOver'
  | 'printed'
  | 'lastQueuedReport'
  | 'outbox'
  | 'sent'
>
