// The built-in agent's ledger. Its hub's database already holds, durably and in the same file, every
// job the built-in agent received (the hub's row DELIVERED, its document): so the agent keeps its
// received jobs in memory, and writes one small row a job (`ledger_intents`) only from its claim,
// the record of intent flushed before the first byte, then updated with each report. The row is
// not removed when the job ends: the hub may record the report in a later commit than the row's
// change (the in-process link hands frames over on a later turn of the microtask queue), and after
// a crash between the two the row says how the job ended, so it is reported again instead of
// printed again. At start the received jobs are rebuilt from the hub's rows, a page at a time per
// printer (its backlog): a start costs the same however many jobs the hub holds.
//
// What this saves against the ledger of a remote agent (ledger.ts), per job: the row with its
// payload and its three indexes, the read of the next job, the outbox's rows (docs/performance.md).
import type { Database } from 'bun:sqlite'
import { fileOf, migrate } from '../sqlite/database.ts'
import type { GroupCommit } from '../sqlite/group-commit.ts'
import { MAX_RESUMES, RETAINED_FINISHED_JOBS } from './agent-ledger.ts'
import { type Backlog, BuiltinJobs, type HubRecords } from './builtin-jobs.ts'
import { MarksRun } from './marks-run.ts'
import {
  LEDGER_STATE_SETS,
  LEDGER_TRANSITIONS,
  type LedgerState,
  ledgerStateIn,
  type ReportedLedgerEvent,
} from './ledger-transitions.ts'
import { adoptBuiltinLedgerRows, LEDGER_SCHEMA, ledgerSettings } from './ledger-schema.ts'
import { type IntentRow, type LedgerJob, type RecoveredJob, toJob } from './ledger-rows.ts'

export {
  BACKLOG_PAGE,
  type HeldByHub,
  type HubRecords,
  KEPT_PAYLOAD_BYTES,
  KEPT_PAYLOADS_PER_PRINTER,
} from './builtin-jobs.ts'

/** Old rows are forgotten once per this many finished jobs. */
const FORGET_EVERY = 256

/** The built-in agent's ledger: its jobs in memory (builtin-jobs.ts), and their rows from their claim on. */
export class BuiltinLedger extends BuiltinJobs {
  private finishedSinceForget = 0
  private readonly insert
  private readonly update

  constructor(
    private readonly db: Database,
    commits: GroupCommit,
    hub: HubRecords,
    now: () => number = Date.now,
  ) {
    migrate(db, LEDGER_SCHEMA)
    super(commits, new MarksRun(fileOf(db), ledgerSettings(db, commits)), hub, now)
    this.lastSeq =
      db
        .query<{ seq: number | null }, []>(
          `SELECT max(seq) AS seq FROM (SELECT max(seq) AS seq FROM ledger_intents
            UNION ALL SELECT max(seq) FROM ledger_jobs)`,
        )
        .get()?.seq ?? 0
    this.insert = db.query<unknown, [number, string, string, string, string, string, number, number, string | null]>(
      `INSERT INTO ledger_intents (seq, job_id, idempotency_key, printer_id,
        source_message_id, state, received_at, updated_at, reports) VALUES (?,
        ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    this.update = db.query<unknown, [string, number, string | null, number]>(
      'UPDATE ledger_intents SET state = ?, updated_at = ?, reports = ? WHERE seq = ?',
    )
  }

  readonly tellsHubAtOnce = true

  close(): void {
    this.marks.close()
    this.commits.commit()
  }

  // ---- Jobs ----

  /** received → submitting: the job's row, on disk (`durable()`) before a single byte goes to the printer. */
  claim(seq: number): boolean {
    const job = this.bySeq.get(seq)
    if (!job || !(LEDGER_TRANSITIONS.claim.from as readonly LedgerState[]).includes(job.state)) return false
    this.write(job, LEDGER_TRANSITIONS.claim.to, [])
    return true
  }

  /** Applies `event` to a job and queues its reports, in one change of its row. */
  finish(seq: number, event: ReportedLedgerEvent, reports: readonly string[]): boolean {
    const job = this.bySeq.get(seq)
    if (!job || !(LEDGER_TRANSITIONS[event].from as readonly LedgerState[]).includes(job.state)) return false
    this.write(job, LEDGER_TRANSITIONS[event].to, reports)
    for (const frame of reports) this.frames.set(++this.lastFrame, frame)
    if ((LEDGER_STATE_SETS.finished as readonly LedgerState[]).includes(job.state)) {
      this.release(job)
      this.remember(job)
      if (++this.finishedSinceForget >= FORGET_EVERY) this.forgetOldRows()
    }
    // Marked printed, so a crash of the process cannot lose that it printed: the record rides along
    // with the intent of the printer's next job (or the one after), committed on its way (docs/delivery.md).
    if (this.markedPrinted.delete(seq) && this.queues.get(job.printerId)?.length) this.commits.postponeTurnCommit()
    else this.commits.commitTurn()
    return true
  }

  // ---- Start ----

  /**
   * At start: an earlier version's rows taken over, the jobs a crash left between intent and
   * result sorted (resumed when their hand-over mark says they never reached the printer, the
   * others returned, `printed` when their mark says so), the received jobs rebuilt from the hub's
   * rows, and the reports the hub may not have recorded queued again. Then this run's marks start.
   */
  recover(): RecoveredJob[] {
    adoptBuiltinLedgerRows(this.db, this.commits)
    const marks = this.marks.lastRun()
    const recovered: RecoveredJob[] = []
    const interrupted = this.db
      .query<IntentRow, []>(
        `SELECT * FROM ledger_intents WHERE ${ledgerStateIn(LEDGER_STATE_SETS.interrupted)} ORDER BY seq`,
      )
      .all()
    for (const row of interrupted) {
      const neverHanded =
        row.state === 'submitting' &&
        marks !== undefined &&
        !marks.handed.has(row.seq) &&
        row.recovery_count < MAX_RESUMES
      if (neverHanded)
        this.commits.write(() =>
          this.db.run(
            `UPDATE ledger_intents SET state = 'received', recovery_count =
              recovery_count + 1, updated_at = ? WHERE seq = ?`,
            [this.now(), row.seq],
          ),
        )
      else {
        const job = toJob(row)
        this.rowed.add(job.seq)
        this.bySeq.set(job.seq, job)
        this.byId.set(job.jobId, job)
        recovered.push({ ...job, printed: marks?.printed.has(job.seq) === true })
      }
    }
    this.rebuild()
    // A job still claimed (recovery left it uncertain) stays so if this run crashes too, and one known printed stays
    // known.
    const claimed = this.db
      .query<{ seq: number }, []>(
        `SELECT seq FROM ledger_intents WHERE ${ledgerStateIn(LEDGER_TRANSITIONS.resume.from)}`,
      )
      .all()
    this.marks.start(
      claimed.map((row) => row.seq),
      recovered.filter((job) => job.printed).map((job) => job.seq),
    )
    return recovered
  }

  private write(job: LedgerJob, to: LedgerState, reports: readonly string[]): void {
    const all = reports.length > 0 ? [...job.reports, ...reports] : job.reports
    const text = all.length > 0 ? JSON.stringify(all) : null
    const now = this.now()
    this.commits.write(() => {
      if (this.rowed.has(job.seq)) this.update.run(to, now, text, job.seq)
      else
        this.insert.run(
          job.seq,
          job.jobId,
          job.idempotencyKey,
          job.printerId,
          job.sourceMessageId,
          to,
          job.receivedAt,
          now,
          text,
        )
    })
    this.rowed.add(job.seq)
    job.state = to
    job.reports = all
  }

  /**
   * The received jobs, from the hub's rows: each printer's first backlog page now, the next ones as
   * its queue runs low. A job resumed after a crash that the hub no longer holds (cancelled
   * meanwhile) ends here.
   */
  private rebuild(): void {
    const resumed = this.db
      .query<IntentRow, []>(`SELECT * FROM ledger_intents WHERE ${ledgerStateIn(LEDGER_STATE_SETS.waiting)}`)
      .all()
    const gone = resumed.filter((row) => !this.hub.heldJob(row.job_id)).map((row) => row.seq)
    if (gone.length > 0) {
      this.commits.write(() =>
        this.db.run(
          'UPDATE ledger_intents SET state = ?, updated_at = ? WHERE seq IN (SELECT value FROM json_each(?))',
          [LEDGER_TRANSITIONS.cancel.to, this.now(), JSON.stringify(gone)],
        ),
      )
    }
    for (const [printerId, upTo] of this.hub.backlogEnds()) {
      const backlog: Backlog = { after: 0, upTo, queued: 0 }
      this.backlogs.set(printerId, backlog)
      this.readBacklog(printerId, backlog)
    }
  }

  protected intentRows(jobIds: readonly string[]): Map<string, IntentRow> {
    return new Map(
      this.db
        .query<IntentRow, [string]>('SELECT * FROM ledger_intents WHERE job_id IN (SELECT value FROM json_each(?))')
        .all(JSON.stringify(jobIds))
        .map((row) => [row.job_id, row]),
    )
  }

  private forgetOldRows(): void {
    this.finishedSinceForget = 0
    this.commits.write(() =>
      this.db.run(
        `DELETE FROM ledger_intents WHERE seq IN (
           SELECT seq FROM ledger_intents WHERE ${ledgerStateIn(LEDGER_STATE_SETS.finished)}
           ORDER BY seq DESC LIMIT -1 OFFSET ?)`,
        [RETAINED_FINISHED_JOBS],
      ),
    )
  }
}
