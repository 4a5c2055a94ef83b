// The built-in agent's received jobs in memory (builtin-ledger.ts keeps their rows): each printer's
// queue in the order received, the jobs by number and by wire ID, the finished ones remembered for a
// while, the reports not yet sent, and the payloads kept within their budget (payload-budget.ts).
// The jobs its agent held when the hub started come from the hub's rows, a page at a time per
// printer (its backlog), as its queue runs low.
import type { GroupCommit } from '../sqlite/group-commit.ts'
import { OUTBOX_PAGE, type ReceiveOutcome } from './agent-ledger.ts'
import { LedgerCommits } from './ledger-commits.ts'
import { type IntentRow, type LedgerJob, type PrintJobPayload, toJob } from './ledger-rows.ts'
import { LEDGER_STATE_SETS, type LedgerState } from './ledger-transitions.ts'
import type { MarksRun } from './marks-run.ts'
import { PayloadBudget } from './payload-budget.ts'

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
/**
 * The text of the frames whose payloads are kept beyond each printer's first ones, at most (the hub keeps as many bytes
 * of new jobs' documents: store/jobs.ts).
 */
export const KEPT_PAYLOAD_BYTES = 4 * 1024 * 1024
/**
 * Held jobs of a printer read from the hub at once (at least the hub's resync of a printer, 256: see dispatcher.ts).
 */
export const BACKLOG_PAGE = 256
/** A printer's next backlog page is read when fewer of its backlog's jobs than this are in memory. */
const REFILL_BELOW = 64
/** Finished jobs remembered in memory (a job sent again in the same run is answered with its reports). */
const REMEMBERED_FINISHED = 1_024

/** The jobs a printer's agent held when the hub started and that are not yet in memory. */
export interface Backlog {
  /** The order of the last job read, and of the newest held at start. */
  after: number
  readonly upTo: number
  /** How many of the backlog's jobs are in the queue (they are at its front, oldest first). */
  queued: number
}

export abstract class BuiltinJobs extends LedgerCommits {
  /** Each printer's jobs in the order received: waiting, and the one being written at the head. */
  protected readonly queues = new Map<string, LedgerJob[]>()
  /** Unfinished jobs by number, and by wire ID with the finished ones remembered. */
  protected readonly bySeq = new Map<number, LedgerJob>()
  protected readonly byId = new Map<string, LedgerJob>()
  private readonly finished: string[] = []
  /** Jobs with a row. */
  protected readonly rowed = new Set<number>()
  protected readonly frames = new Map<number, string>()
  /** Each printer's backlog, while some of it is in the hub only or in the queue; the jobs from it. */
  protected readonly backlogs = new Map<string, Backlog>()
  private readonly fromBacklog = new Set<number>()
  private readonly keptBeyond = new PayloadBudget(KEPT_PAYLOAD_BYTES)
  /** Jobs marked printed whose result is not yet recorded. */
  protected readonly markedPrinted = new Set<number>()
  protected lastFrame = 0
  protected lastSeq = 0

  constructor(
    commits: GroupCommit,
    marks: MarksRun,
    protected readonly hub: HubRecords,
    protected readonly now: () => number,
  ) {
    super(commits, marks)
  }

  /** The rows (`ledger_intents`) of the jobs of these wire IDs, by wire ID. */
  protected abstract intentRows(jobIds: readonly string[]): Map<string, IntentRow>

  /**
   * The hub sends a wire ID's job byte for byte the same each time (it is in this process): a repeat is a duplicate.
   * `size`: its frame's length.
   */
  receive(payload: PrintJobPayload, messageId: string, size?: number): ReceiveOutcome {
    const known = this.known(payload.jobId)
    if (known)
      return known.idempotencyKey === payload.idempotencyKey
        ? { kind: 'duplicate', job: known }
        : { kind: 'conflict', reason: 'job ID known with another idempotency key' }
    const seq = ++this.lastSeq
    const kept = this.queueOf(payload.printerId).length < KEPT_PAYLOADS_PER_PRINTER || this.keptBeyond.take(seq, size)
    const job: LedgerJob = {
      seq,
      jobId: payload.jobId,
      idempotencyKey: payload.idempotencyKey,
      printerId: payload.printerId,
      payload: kept ? payload : null,
      sourceMessageId: messageId,
      state: 'received',
      receivedAt: this.now(),
      recoveryCount: 0,
      reports: [],
    }
    this.hold(job)
    return { kind: 'new', job: kept ? job : { ...job, payload } }
  }

  /** The job as it is now (a copy: what the ledger changes later does not change it, as a row read back would not). */
  job(jobId: string): LedgerJob | undefined {
    const job = this.known(jobId)
    return job && { ...job }
  }

  /**
   * The oldest received job of a printer, its payload read from the hub if not kept; none while one is being written
   * (not one marked printed: held-records.ts).
   */
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

  /**
   * The received job queued right after job `seq` (payload read from the hub if not kept); none if it is not waiting or
   * the hub no longer holds it.
   */
  nextAfter(printerId: string, seq: number): LedgerJob | undefined {
    const queue = this.queues.get(printerId)
    const at = queue?.[0]?.seq === seq ? 0 : (queue?.findIndex((job) => job.seq === seq) ?? -1)
    const next = at >= 0 ? queue![at + 1] : undefined
    if (next?.state !== 'received') return undefined
    next.payload ??= this.hub.payload(next.jobId) ?? null
    return next.payload ? next : undefined
  }

  /**
   * The jobs whose end the hub has not been told (ledger.ts): those in memory, waiting or begun (a backlog's others are
   * DELIVERED to the hub; an ended job's reports are told at once).
   */
  unreportedJobs(): LedgerJob[] {
    return [...this.queues.values()].flat()
  }

  printersWithWork(): string[] {
    const printers = [...this.queues]
      .filter(([, queue]) => queue.some((job) => job.state === 'received'))
      .map(([printerId]) => printerId)
    for (const [printerId, backlog] of this.backlogs)
      if (backlog.after < backlog.upTo && !printers.includes(printerId)) printers.push(printerId)
    return printers
  }

  /**
   * Marks the job as printed, the moment the agent knows, before its result is recorded (marks-run.ts); its record may
   * then wait for its printer's next intent (held-records.ts).
   */
  override printed(job: LedgerJob): void {
    if (this.marks.printed(job.printerId, job.seq)) this.markedPrinted.add(job.seq)
  }

  // ---- Outbox (in memory: after a crash the rows say what to report again) ----

  lastQueuedReport(): number | undefined {
    return this.frames.size > 0 ? this.lastFrame : undefined
  }

  outbox(upTo: number, limit = OUTBOX_PAGE): { seq: number; frame: string }[] {
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

  protected queueOf(printerId: string): LedgerJob[] {
    let queue = this.queues.get(printerId)
    if (!queue) this.queues.set(printerId, (queue = []))
    return queue
  }

  protected hold(job: LedgerJob): void {
    this.queueOf(job.printerId).push(job)
    this.bySeq.set(job.seq, job)
    this.byId.set(job.jobId, job)
  }

  /** The job leaves its printer's queue (finished, or no longer the hub's). */
  protected release(job: LedgerJob): void {
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
  protected remember(job: LedgerJob): void {
    job.payload = null
    this.byId.set(job.jobId, job)
    this.finished.push(job.jobId)
    if (this.finished.length > REMEMBERED_FINISHED) this.byId.delete(this.finished.shift()!)
  }

  /** A printer's next backlog page. */
  protected readBacklog(printerId: string, backlog: Backlog): void {
    const held = this.hub.held(printerId, backlog.after, backlog.upTo, BACKLOG_PAGE)
    backlog.after = held.length < BACKLOG_PAGE ? backlog.upTo : held.at(-1)!.order
    this.adopt(printerId, backlog, held)
    if (backlog.queued === 0 && backlog.after >= backlog.upTo) this.backlogs.delete(printerId)
  }

  /**
   * A job of a backlog asked for before its page was read (sent again, or cancelled): read now, and
   * queued after the backlog's jobs in memory.
   */
  protected known(jobId: string): LedgerJob | undefined {
    const job = this.byId.get(jobId)
    if (job || this.backlogs.size === 0) return job
    const held = this.hub.heldJob(jobId)
    const backlog = held && this.backlogs.get(held.printerId)
    if (!held || !backlog || held.order <= backlog.after || held.order > backlog.upTo) return undefined
    this.adopt(held.printerId, backlog, [held])
    return this.byId.get(jobId)
  }

  /**
   * Held jobs into a printer's queue, after its backlog's others; one whose row says it ended is reported again
   * instead.
   */
  protected adopt(printerId: string, backlog: Backlog, held: readonly HeldByHub[]): void {
    const ids = held.filter((job) => !this.byId.has(job.jobId)).map((job) => job.jobId)
    if (ids.length === 0) return
    const rows = this.intentRows(ids)
    const adopted: LedgerJob[] = []
    for (const { jobId, messageId, receivedAt } of held) {
      if (this.byId.has(jobId)) continue
      const row = rows.get(jobId)
      const job: LedgerJob = row
        ? toJob(row)
        : {
            seq: ++this.lastSeq,
            jobId,
            idempotencyKey: jobId,
            printerId,
            payload: null,
            sourceMessageId: messageId,
            state: 'received',
            receivedAt,
            recoveryCount: 0,
            reports: [],
          }
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
}
