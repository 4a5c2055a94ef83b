// The agent's durable ledger: its pairing, its own printers (remote agents), every job it received
// with its state, and the reports not yet sent. A remote agent keeps it in a SQLite file of its
// own; the built-in agent keeps it in the hub's database, where a job's creation, its dispatch and
// its receipt share one commit.
// The duplicate rules are those of OpenPrinter v1 section 7.4. Job changes go into the turn's group
// commit: the agent waits for `durable()` before bytes go to a printer, and before the hub is told
// (an acknowledgement, a report) unless `tellsHubAtOnce`, so jobs of several printers share one
// disk flush (ledger-commits.ts, for both ledgers). Its statements are in ledger-sql.ts; what the
// agent asks of a ledger, in agent-ledger.ts.
import { describeError, Log, type Logger } from '../platform/log.ts'
import { Database } from 'bun:sqlite'
import {
  LEDGER_STATE_SETS,
  LEDGER_TRANSITIONS,
  type LedgerState,
  type ReportedLedgerEvent,
} from './ledger-transitions.ts'
import { LedgerCommits } from './ledger-commits.ts'
import { MarksRun } from './marks-run.ts'
import { AHEAD_PAYLOAD_CHARS } from './render-ahead.ts'
import { fileOf, migrate, openDatabase } from '../sqlite/database.ts'
import { LEDGER_SCHEMA, ledgerSettings, OWN_FILE_SCHEMA } from './ledger-schema.ts'
import { GroupCommit } from '../sqlite/group-commit.ts'
import {
  canonicalJson,
  type IntentRow,
  type JobRow,
  type LedgerJob,
  type PrintJobPayload,
  type RecoveredJob,
  sha256,
  toJob,
} from './ledger-rows.ts'
import * as SQL from './ledger-sql.ts'
import { MAX_RESUMES, OUTBOX_PAGE, type ReceiveOutcome, RETAINED_FINISHED_JOBS } from './agent-ledger.ts'

/** Old jobs are forgotten once per this many finished jobs (and at open), not on every one. */
const FORGET_EVERY = 256

export type { LedgerJob, PrintJobPayload } from './ledger-rows.ts'
export { type AgentLedger, MAX_RESUMES, RETAINED_FINISHED_JOBS } from './agent-ledger.ts'

export interface LocalPrinter {
  id: string
  name: string
  connection: string
  profile: string
  width: 58 | 80
}

export interface LedgerOptions {
  now?: () => number
  /** Where a failed commit is told (a disk error; the agent goes on): component agent, stderr when not given. */
  log?: Logger
}

export class Ledger extends LedgerCommits {
  private finishedSinceForget = 0
  private readonly insertJob
  private readonly settings: ReturnType<typeof ledgerSettings>

  private constructor(
    readonly db: Database,
    commits: GroupCommit,
    private readonly now: () => number,
    /**
     * Where it is: a file of its own or a database in memory (which it closes), or tables in its hub's database.
     */
    private readonly kind: 'file' | 'memory' | 'within',
  ) {
    const settings = ledgerSettings(db, commits)
    super(commits, new MarksRun(fileOf(db), settings))
    this.settings = settings
    this.insertJob = db.query<{ seq: number }, [string, string, string, string, string, string, number, number]>(
      SQL.INSERT_JOB,
    )
    this.forgetOldJobs()
  }

  /** A remote agent's ledger: its own file in `dir`. */
  static open(
    dir: string,
    {
      now = Date.now,
      log = new Log({ format: 'text', level: 'warn', journal: false }, (line) => console.error(line)).for('agent'),
    }: LedgerOptions = {},
  ): Ledger {
    const db = openDatabase(dir, true, OWN_FILE_SCHEMA)
    return new Ledger(
      db,
      new GroupCommit(db, (error) =>
        log.error(
          'a ledger commit failed (rolled back) or could not be flushed to disk',
          { error: describeError(error) },
          { limit: 'ledger commit' },
        ),
      ),
      now,
      'file',
    )
  }

  /** The built-in agent's ledger: tables in the hub's database, changes in the hub's commits. */
  static within(db: Database, commits: GroupCommit, now: () => number = Date.now): Ledger {
    migrate(db, LEDGER_SCHEMA)
    return new Ledger(db, commits, now, 'within')
  }

  /**
   * A ledger in memory, closed with its database: a cluster node's agent's, whose record is the cluster's database
   * (hub/node-agent.ts). Its changes need no flush, and the hub is told of them at once.
   */
  static inMemory(log: Logger, now: () => number = Date.now): Ledger {
    const db = new Database(':memory:')
    migrate(db, LEDGER_SCHEMA)
    const commits = new GroupCommit(db, (error) =>
      log.error("the agent's ledger in memory failed", { error: describeError(error) }),
    )
    return new Ledger(db, commits, now, 'memory')
  }

  /**
   * Whether the hub may be told of a change (an acknowledgement, a report) before it is on disk:
   * not by a ledger of its own, which waits for `durable()`; yes by the built-in agent's. Its hub
   * records what it is told in its own transactions, which are this ledger's, so in the same one as
   * the change or a later one, and that record can reach the disk only with the change it speaks of
   * (a log is written and recovered in order). A crash loses both or neither. Yes by one in memory too, which has no
   * disk to wait for.
   */
  get tellsHubAtOnce(): boolean {
    return this.kind !== 'file'
  }

  /** Commits what is open; closes the database if the ledger opened it. */
  close(): void {
    this.marks.close()
    try {
      if (this.kind === 'within') this.commits.commit()
      else this.commits.close()
    } finally {
      if (this.kind !== 'within') this.db.close(true)
    }
  }

  setting(key: string): string | undefined {
    return this.settings.get(key)
  }

  /** Stored at once, on disk when this returns. */
  setSettings(values: Record<string, string>): void {
    this.settings.set(values)
  }

  // ---- The agent's own printers (a remote agent's; the built-in agent's are the hub's records) ----

  /** Stored at once, on disk when this returns. */
  addPrinter(printer: LocalPrinter): boolean {
    const added = this.commits.write(
      () =>
        this.db.run(SQL.INSERT_PRINTER, [
          printer.id,
          printer.name,
          printer.connection,
          printer.profile,
          printer.width,
          this.now(),
        ]).changes === 1,
    )
    this.commits.commit()
    return added
  }

  printers(): LocalPrinter[] {
    return this.db.query<LocalPrinter, []>(SQL.PRINTERS).all()
  }

  // ---- Jobs ----

  /**
   * Stores a delivered job, or says why it is a duplicate or a conflict. It is acknowledged only
   * once `durable()` settles. (`_size`, the length of the frame it came in, is for a ledger that
   * keeps payloads in memory: this one stores them.)
   */
  receive(payload: PrintJobPayload, messageId: string, _size?: number): ReceiveOutcome {
    // Stored as its canonical text, the text its hash is of: serialised once.
    const text = canonicalJson(payload)
    const hash = sha256(text)
    return this.commits.write((): ReceiveOutcome => {
      const now = this.now()
      // Most jobs are new: the insert comes first, and the look-ups only when a key is taken.
      const inserted = this.insertJob.get(
        payload.jobId,
        payload.idempotencyKey,
        payload.printerId,
        text,
        hash,
        messageId,
        now,
        now,
      )
      if (inserted) {
        // The job is made from what was stored, not read back: its payload is not parsed a second time.
        const job: LedgerJob = {
          seq: inserted.seq,
          jobId: payload.jobId,
          idempotencyKey: payload.idempotencyKey,
          printerId: payload.printerId,
          payload,
          sourceMessageId: messageId,
          state: 'received',
          receivedAt: now,
          recoveryCount: 0,
          reports: [],
        }
        return { kind: 'new', job }
      }
      const byId = this.db.query<JobRow, [string]>(SQL.JOB_BY_ID).get(payload.jobId)
      if (byId) {
        if (byId.idempotency_key !== payload.idempotencyKey)
          return { kind: 'conflict', reason: 'job ID known with another idempotency key' }
        if (byId.payload_sha256 !== hash) return { kind: 'conflict', reason: 'job ID known with other content' }
        return { kind: 'duplicate', job: toJob(byId) }
      }
      return { kind: 'conflict', reason: 'idempotency key used by another job' }
    })
  }

  job(jobId: string): LedgerJob | undefined {
    const row = this.db.query<JobRow, [string]>(SQL.JOB_BY_ID).get(jobId)
    return row ? toJob(row) : undefined
  }

  /** The oldest received job of a printer (jobs of one printer print in the order they came). */
  nextReceived(printerId: string): LedgerJob | undefined {
    const row = this.db.query<JobRow, [string]>(SQL.FIRST_QUEUED).get(printerId)
    return row && row.state === 'received' ? toJob(row) : undefined
  }

  /**
   * The received job of a printer queued after job `seq` (the next to print once that one is done),
   * to render ahead; none when its payload is longer than AHEAD_PAYLOAD_CHARS (not parsed for that).
   */
  nextAfter(printerId: string, seq: number): LedgerJob | undefined {
    const row = this.db.query<JobRow, [string, number]>(SQL.QUEUED_AFTER).get(printerId, seq)
    return row && row.state === 'received' && (row.payload?.length ?? 0) <= AHEAD_PAYLOAD_CHARS ? toJob(row) : undefined
  }

  /**
   * The jobs whose end the hub has not been told: every one not finished, and every finished one
   * whose reports are still in the outbox (queued after the last send, or waiting for their commit).
   * Acknowledged again after a reconnect, before the inventory (agent.ts), without their payloads.
   */
  unreportedJobs(): LedgerJob[] {
    return this.db.query<IntentRow, []>(SQL.UNREPORTED_JOBS).all().map(toJob)
  }

  /** Printers with jobs waiting. */
  printersWithWork(): string[] {
    return this.db
      .query<{ printer_id: string }, []>(SQL.PRINTERS_WITH_WORK)
      .all()
      .map((r) => r.printer_id)
  }

  /**
   * received → submitting: the record of the intent, on disk (`durable()`) before a single byte
   * goes to the printer. A crash after this point leaves the job in `submitting`, and recovery
   * knows it may have printed.
   */
  claim(seq: number): boolean {
    return this.commits.write(
      () => this.db.query(SQL.CLAIM).run(LEDGER_TRANSITIONS.claim.to, this.now(), seq).changes === 1,
    )
  }

  /**
   * Applies `event` to a job and queues its reports, in one transaction: a report is never sent
   * for a state that was not recorded, and never lost for one that was. False, and nothing queued,
   * when the event does not apply to the job's state.
   */
  finish(seq: number, event: ReportedLedgerEvent, reports: readonly string[]): boolean {
    return this.commits.write(() => {
      const now = this.now()
      const to = LEDGER_TRANSITIONS[event].to
      const terminal = (LEDGER_STATE_SETS.finished as readonly LedgerState[]).includes(to)
      // The job keeps every report it made (submitted, then completed), to send again after a reconnection.
      const earlier = this.db.query<{ reports: string | null }, [number]>(SQL.JOB_REPORTS).get(seq)?.reports
      const all = [...(earlier ? (JSON.parse(earlier) as string[]) : []), ...reports]
      const changed = this.db.query(SQL.finishSql(event, terminal)).run(to, now, JSON.stringify(all), seq).changes
      if (changed !== 1) return false
      const queue = this.db.query(SQL.QUEUE_REPORT)
      for (const frame of reports) queue.run(seq, frame, now)
      if (terminal && ++this.finishedSinceForget >= FORGET_EVERY) this.forgetOldJobs()
      return true
    })
  }

  /**
   * At start, after a crash: the jobs it left between the record of intent and the record of the
   * result. A job claimed whose hand-over mark is missing from marks this ledger trusts was never
   * handed to its printer: it goes back to `received` (`resume`) instead; one whose mark says it
   * printed comes back `printed`; the others may have printed. Then this run's marks start.
   */
  recover(): RecoveredJob[] {
    const marks = this.marks.lastRun()
    const interrupted = this.db.query<JobRow, []>(SQL.INTERRUPTED_JOBS).all().map(toJob)
    const recovered: RecoveredJob[] = []
    for (const job of interrupted) {
      const neverHanded = job.state === 'submitting' && marks !== undefined && !marks.handed.has(job.seq)
      if (!(neverHanded && this.resume(job.seq)))
        recovered.push({ ...job, printed: marks?.printed.has(job.seq) === true })
    }
    // A job still claimed (recovery left it uncertain) stays so if this run crashes too, and one known printed stays
    // known.
    const claimed = this.db.query<{ seq: number }, []>(SQL.CLAIMED_JOBS).all()
    this.marks.start(
      claimed.map((row) => row.seq),
      recovered.filter((job) => job.printed).map((job) => job.seq),
    )
    return recovered
  }

  /** submitting → received: only for a job never handed to its printer (`recover`), at most MAX_RESUMES times. */
  resume(seq: number): boolean {
    return this.commits.write(
      () => this.db.run(SQL.RESUME, [LEDGER_TRANSITIONS.resume.to, this.now(), seq, MAX_RESUMES]).changes === 1,
    )
  }

  // ---- Outbox ----

  /** The newest report queued, if any. */
  lastQueuedReport(): number | undefined {
    return this.db.query<{ seq: number | null }, []>(SQL.LAST_QUEUED_REPORT).get()?.seq ?? undefined
  }

  /** The oldest reports queued up to `upTo`, a page (OUTBOX_PAGE) at a time. */
  outbox(upTo: number, limit = OUTBOX_PAGE): { seq: number; frame: string }[] {
    return this.db.query<{ seq: number; frame: string }, [number, number]>(SQL.QUEUED_REPORTS).all(upTo, limit)
  }

  /** A report handed to the connection; losing this change to a crash only sends it again. */
  sent(seq: number): void {
    this.commits.defer(() => this.db.query(SQL.REPORT_SENT).run(seq))
  }

  /**
   * Counted from the newest finished job, not by a window of job numbers: with a backlog of jobs
   * received and not yet printed wider than the window, a job would be forgotten the moment it
   * finished, its report with it, before the hub heard it.
   */
  private forgetOldJobs(): void {
    this.finishedSinceForget = 0
    this.db.run(SQL.FORGET_OLD_JOBS, [RETAINED_FINISHED_JOBS])
  }
}
