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
import { MarksRun } from './marks-run.ts'
import { PayloadBudget } from './payload-budget.ts'
import { type LedgerJob, MAX_RESUMES, type PrintJobPayload, RETAINED_FINISHED_JOBS, type ReceiveOutcome } from './ledger.ts'
import { LEDGER_STATE_SETS, LEDGER_TRANSITIONS, type LedgerState, ledgerStateIn, type ReportedLedgerEvent } from './ledger-transitions.ts'
import { adoptBuiltinLedgerRows, LEDGER_SCHEMA, ledgerSettings } from './ledger-schema.ts'
import { type IntentRow, type RecoveredJob, toJob } from './ledger-rows.ts'

/** A job the hub holds with this agent (DELIVERED or PRINTING), as the hub sent it. */
export interface HeldByHub {
  jobId: string
  printerId: string
  messageId: string
  receivedAt: number
  /** Its place among its printer's held jobs (a larger number came later). */
  order: number
}

/** What the agent asks of the hub it is built into. */
export interface HubRecords {
  /** Each printer's newest held job's order, at start: the end of the printer's backlog. */
  backlogEnds(): Map<string, number>
  /** A printer's held jobs ordered after `after` up to `upTo`, oldest first: at most `limit`. */
  held(printerId: string, after: number, upTo: number, limit: number): HeldByHub[]
  /** A job the hub holds with this agent, by wire ID. */
  heldJob(jobId: string): HeldByHub | undefined
  /** A held job's payload as the hub sends it (byte for byte the same); undefined once the hub no longer holds it. */
  payload(jobId: string): PrintJobPayload | undefined
}

/**
 * Received jobs' payloads stay in memory: each printer's first this many, and beyond them as many
 * as KEPT_PAYLOAD_BYTES of their frames' text allow (a burst to one printer is printed without
 * reading its documents back). The others' are read from the hub at their turn.
 */
export const KEPT_PAYLOADS_PER_PRINTER = 16
/** The text of the frames whose payloads are kept beyond each printer's first ones, at most (the hub keeps as many bytes of new jobs' documents: store/jobs.ts). */
export const KEPT_PAYLOAD_BYTES = 4 * 1024 * 1024
/** Held jobs of a printer read from the hub at once (at least the hub's resync of a printer, 256: see dispatcher.ts). */
export const BACKLOG_PAGE = 256
/** A printer's next backlog page is read when fewer of its backlog's jobs than this are in memory. */
const REFILL_BELOW = 64
/** Finished jobs remembered in memory (a job sent again in the same run is answered with its reports). */
const REMEMBERED_FINISHED = 1_024
/** Old rows are forgotten once per this many finished jobs. */
const FORGET_EVERY = 256

/** The jobs a printer's agent held when the hub started and that are not yet in memory. */
interface Backlog {
  /** The order of the last job read, and of the newest held at start. */
  after: number
  readonly upTo: number
  /** How many of the backlog's jobs are in the queue (they are at its front, oldest first). */
  queued: number
}

export class BuiltinLedger {
  /** Each printer's jobs in the order received: waiting, and the one being written at the head. */
  private readonly queues = new Map<string, LedgerJob[]>()
  /** Unfinished jobs by number, and by wire ID with the finished ones remembered. */
  private readonly bySeq = new Map<number, LedgerJob>()
  private readonly byId = new Map<string, LedgerJob>()
  private readonly finished: string[] = []
  /** Jobs with a row. */
  private readonly rowed = new Set<number>()
  private readonly frames = new Map<number, string>()
  /** Each printer's backlog, while some of it is in the hub only or in the queue; the jobs from it. */
  private readonly backlogs = new Map<string, Backlog>()
  private readonly fromBacklog = new Set<number>()
  private readonly keptBeyond = new PayloadBudget(KEPT_PAYLOAD_BYTES)
  /** Jobs marked printed whose result is not yet recorded. */
  private readonly markedPrinted = new Set<number>()
  private lastFrame = 0
  private lastSeq: number
  private finishedSinceForget = 0
  private readonly marks: MarksRun
  private readonly insert
  private readonly update

  constructor(
    private readonly db: Database,
    private readonly commits: GroupCommit,
    private readonly hub: HubRecords,
    private readonly now: () => number = Date.now,
  ) {
    migrate(db, LEDGER_SCHEMA)
    this.marks = new MarksRun(fileOf(db), ledgerSettings(db, commits))
    this.lastSeq = db.query<{ seq: number | null }, []>('SELECT max(seq) AS seq FROM (SELECT max(seq) AS seq FROM ledger_intents UNION ALL SELECT max(seq) FROM ledger_jobs)').get()?.seq ?? 0
    this.insert = db.query<unknown, [number, string, string, string, string, string, number, number, string | null]>(
      'INSERT INTO ledger_intents (seq, job_id, idempotency_key, printer_id, source_message_id, state, received_at, updated_at, reports) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    )
    this.update = db.query<unknown, [string, number, string | null, number]>('UPDATE ledger_intents SET state = ?, updated_at = ?, reports = ? WHERE seq = ?')
  }

  readonly tellsHubAtOnce = true

  durable(): Promise<void> {
    return this.commits.durable()
  }

  claimDurable(): Promise<void> {
    return this.commits.urgentlyDurable()
  }

  claimFlushing(): Promise<void> {
    return this.commits.commitUrgently()
  }

  flushNow(): void {
    this.commits.commit()
  }

  close(): void {
    this.marks.close()
    this.commits.commit()
  }

  // ---- Jobs ----

  /** The hub sends a wire ID's job byte for byte the same each time (it is in this process): a repeat is a duplicate. `size`: its frame's length. */
  receive(payload: PrintJobPayload, messageId: string, size?: number): ReceiveOutcome {
    const known = this.known(payload.jobId)
    if (known) return known.idempotencyKey === payload.idempotencyKey ? { kind: 'duplicate', job: known } : { kind: 'conflict', reason: 'job ID known with another idempotency key' }
    const seq = ++this.lastSeq
    const kept = this.queueOf(payload.printerId).length < KEPT_PAYLOADS_PER_PRINTER || this.keptBeyond.take(seq, size)
    const job: LedgerJob = { seq, jobId: payload.jobId, idempotencyKey: payload.idempotencyKey, printerId: payload.printerId, payload: kept ? payload : null, sourceMessageId: messageId, state: 'received', receivedAt: this.now(), recoveryCount: 0, reports: [] }
    this.hold(job)
    return { kind: 'new', job: kept ? job : { ...job, payload } }
  }

  /** The job as it is now (a copy: what the ledger changes later does not change it, as a row read back would not). */
  job(jobId: string): LedgerJob | undefined {
    const job = this.known(jobId)
    return job && { ...job }
  }

  /** The oldest received job of a printer, its payload read from the hub if not kept; none while one is being written (not one marked printed: held-records.ts). */
  nextReceived(printerId: string): LedgerJob | undefined {
    for (;;) {
      const backlog = this.backlogs.get(printerId)
      if (backlog && backlog.queued < REFILL_BELOW && backlog.after < backlog.upTo) this.readBacklog(printerId, backlog)
      const head = this.queues.get(printerId)?.find((job) => !this.markedPrinted.has(job.seq))
      if (!head) {
        if (backlog && backlog.after < backlog.upTo) continue
        return undefined
      }
      if (head.state !== 'received') return undefined
      head.payload ??= this.hub.payload(head.jobId) ?? null
      if (head.payload) return head
      // The hub no longer holds it (cancelled, expired, failed over): nothing to print.
      this.release(head)
    }
  }

  /** The received job queued right after job `seq` (payload read from the hub if not kept); none if it is not waiting or the hub no longer holds it. */
  nextAfter(printerId: string, seq: number): LedgerJob | undefined {
    const queue = this.queues.get(printerId)
    const at = queue?.[0]?.seq === seq ? 0 : (queue?.findIndex((job) => job.seq === seq) ?? -1)
    const next = at >= 0 ? queue![at + 1] : undefined
    if (next?.state !== 'received') return undefined
    next.payload ??= this.hub.payload(next.jobId) ?? null
    return next.payload ? next : undefined
  }

  /** The jobs whose end the hub has not been told (ledger.ts): those in memory, waiting or begun (a backlog's others are DELIVERED to the hub; an ended job's reports are told at once). */
  unreportedJobs(): LedgerJob[] {
    return [...this.queues.values()].flat()
  }

  printersWithWork(): string[] {
    const printers = [...this.queues].filter(([, queue]) => queue.some((job) => job.state === 'received')).map(([printerId]) => printerId)
    for (const [printerId, backlog] of this.backlogs) if (backlog.after < backlog.upTo && !printers.includes(printerId)) printers.push(printerId)
    return printers
  }

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
    const interrupted = this.db.query<IntentRow, []>(`SELECT * FROM ledger_intents WHERE ${ledgerStateIn(LEDGER_STATE_SETS.interrupted)} ORDER BY seq`).all()
    for (const row of interrupted) {
      const neverHanded = row.state === 'submitting' && marks !== undefined && !marks.handed.has(row.seq) && row.recovery_count < MAX_RESUMES
      if (neverHanded) this.commits.write(() => this.db.run("UPDATE ledger_intents SET state = 'received', recovery_count = recovery_count + 1, updated_at = ? WHERE seq = ?", [this.now(), row.seq]))
      else {
        const job = toJob(row)
        this.rowed.add(job.seq)
        this.bySeq.set(job.seq, job)
        this.byId.set(job.jobId, job)
        recovered.push({ ...job, printed: marks?.printed.has(job.seq) === true })
      }
    }
    this.rebuild()
    // A job still claimed (recovery left it uncertain) stays so if this run crashes too, and one known printed stays known.
    const claimed = this.db.query<{ seq: number }, []>(`SELECT seq FROM ledger_intents WHERE ${ledgerStateIn(LEDGER_TRANSITIONS.resume.from)}`).all()
    this.marks.start(claimed.map((row) => row.seq), recovered.filter((job) => job.printed).map((job) => job.seq))
    return recovered
  }

  /** Marks the job as handed to its printer, just before its first byte (marks-run.ts). */
  handingOver(job: LedgerJob): void {
    this.marks.handingOver(job.printerId, job.seq)
  }

  /** Marks the job as printed, the moment the agent knows, before its result is recorded (marks-run.ts). */
  printed(job: LedgerJob): void {
    if (this.marks.printed(job.printerId, job.seq)) this.markedPrinted.add(job.seq)
  }

  // ---- Outbox (in memory: after a crash the rows say what to report again) ----

  lastQueuedReport(): number | undefined {
    return this.frames.size > 0 ? this.lastFrame : undefined
  }

  outbox(upTo: number, limit = 256): { seq: number; frame: string }[] {
    const page: { seq: number; frame: string }[] = []
    for (const [seq, frame] of this.frames) {
      if (seq > upTo || page.length >= limit) break
      page.push({ seq, frame })
    }
    return page
  }

  sent(seq: number): void {
    this.frames.delete(seq)
  }

  // ---- Inside ----

  private queueOf(printerId: string): LedgerJob[] {
    let queue = this.queues.get(printerId)
    if (!queue) this.queues.set(printerId, (queue = []))
    return queue
  }

  private hold(job: LedgerJob): void {
    this.queueOf(job.printerId).push(job)
    this.bySeq.set(job.seq, job)
    this.byId.set(job.jobId, job)
  }

  /** The job leaves its printer's queue (finished, or no longer the hub's). */
  private release(job: LedgerJob): void {
    this.keptBeyond.giveBack(job.seq)
    const queue = this.queues.get(job.printerId)
    const at = queue ? queue.indexOf(job) : -1
    if (at >= 0) queue!.splice(at, 1)
    this.bySeq.delete(job.seq)
    this.byId.delete(job.jobId)
    this.rowed.delete(job.seq)
    if (!this.fromBacklog.delete(job.seq)) return
    const backlog = this.backlogs.get(job.printerId)!
    if (--backlog.queued === 0 && backlog.after >= backlog.upTo) this.backlogs.delete(job.printerId)
  }

  /** A finished job answers a repeat with its reports for a while; its payload is let go. */
  private remember(job: LedgerJob): void {
    job.payload = null
    this.byId.set(job.jobId, job)
    this.finished.push(job.jobId)
    if (this.finished.length > REMEMBERED_FINISHED) this.byId.delete(this.finished.shift()!)
  }

  private write(job: LedgerJob, to: LedgerState, reports: readonly string[]): void {
    const all = reports.length > 0 ? [...job.reports, ...reports] : job.reports
    const text = all.length > 0 ? JSON.stringify(all) : null
    const now = this.now()
    this.commits.write(() => {
      if (this.rowed.has(job.seq)) this.update.run(to, now, text, job.seq)
      else this.insert.run(job.seq, job.jobId, job.idempotencyKey, job.printerId, job.sourceMessageId, to, job.receivedAt, now, text)
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
    const resumed = this.db.query<IntentRow, []>(`SELECT * FROM ledger_intents WHERE ${ledgerStateIn(LEDGER_STATE_SETS.waiting)}`).all()
    const gone = resumed.filter((row) => !this.hub.heldJob(row.job_id)).map((row) => row.seq)
    if (gone.length > 0) {
      this.commits.write(() => this.db.run('UPDATE ledger_intents SET state = ?, updated_at = ? WHERE seq IN (SELECT value FROM json_each(?))', [LEDGER_TRANSITIONS.cancel.to, this.now(), JSON.stringify(gone)]))
    }
    for (const [printerId, upTo] of this.hub.backlogEnds()) {
      const backlog: Backlog = { after: 0, upTo, queued: 0 }
      this.backlogs.set(printerId, backlog)
      this.readBacklog(printerId, backlog)
    }
  }

  /** A printer's next backlog page. */
  private readBacklog(printerId: string, backlog: Backlog): void {
    const held = this.hub.held(printerId, backlog.after, backlog.upTo, BACKLOG_PAGE)
    backlog.after = held.length < BACKLOG_PAGE ? backlog.upTo : held.at(-1)!.order
    this.adopt(printerId, backlog, held)
    if (backlog.queued === 0 && backlog.after >= backlog.upTo) this.backlogs.delete(printerId)
  }

  /**
   * A job of a backlog asked for before its page was read (sent again, or cancelled): read now, and
   * queued after the backlog's jobs in memory.
   */
  private known(jobId: string): LedgerJob | undefined {
    const job = this.byId.get(jobId)
    if (job || this.backlogs.size === 0) return job
    const held = this.hub.heldJob(jobId)
    const backlog = held && this.backlogs.get(held.printerId)
    if (!held || !backlog || held.order <= backlog.after || held.order > backlog.upTo) return undefined
    this.adopt(held.printerId, backlog, [held])
    return this.byId.get(jobId)
  }

  /** Held jobs into a printer's queue, after its backlog's others; one whose row says it ended is reported again instead. */
  private adopt(printerId: string, backlog: Backlog, held: readonly HeldByHub[]): void {
    const ids = held.filter((job) => !this.byId.has(job.jobId)).map((job) => job.jobId)
    if (ids.length === 0) return
    const rows = new Map(this.db.query<IntentRow, [string]>('SELECT * FROM ledger_intents WHERE job_id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)).map((row) => [row.job_id, row]))
    const adopted: LedgerJob[] = []
    for (const { jobId, messageId, receivedAt } of held) {
      if (this.byId.has(jobId)) continue
      const row = rows.get(jobId)
      const job: LedgerJob = row ? toJob(row) : { seq: ++this.lastSeq, jobId, idempotencyKey: jobId, printerId, payload: null, sourceMessageId: messageId, state: 'received', receivedAt, recoveryCount: 0, reports: [] }
      if (job.state === 'received') {
        if (row) this.rowed.add(job.seq)
        adopted.push(job)
        this.bySeq.set(job.seq, job)
        this.byId.set(job.jobId, job)
        this.fromBacklog.add(job.seq)
      } else if ((LEDGER_STATE_SETS.finished as readonly LedgerState[]).includes(job.state)) {
        for (const frame of job.reports) this.frames.set(++this.lastFrame, frame)
        this.remember(job)
      }
    }
    this.queueOf(printerId).splice(backlog.queued, 0, ...adopted)
    backlog.queued += adopted.length
  }

  private forgetOldRows(): void {
    this.finishedSinceForget = 0
    this.commits.write(() =>
      this.db.run(
        `DELETE FROM ledger_intents WHERE seq IN (
           SELECT seq FROM ledger_intents WHERE ${ledgerStateIn(LEDGER_STATE_SETS.finished)} ORDER BY seq DESC LIMIT -1 OFFSET ?)`,
        [RETAINED_FINISHED_JOBS],
      ),
    )
  }
}
