// The redo log's side of the hub's batches (batched-commit.ts): the transaction stays open across turns of the event
// loop, and what must be on disk at the end of a turn is written as one record of the redo log (redo-log.ts,
// redo-changes.ts) and flushed, not committed to SQLite. The batch is then committed once, every page it changed
// written once: a job's three moments on disk (accepted, handed to its printer, COMPLETED) cost three small records and
// a share of one commit, not three commits of every page each.
//
// Whatever waits for a record waits for its flush, and for the flush of a batch committed just before it (the records
// before this one may be in the other file: that commit holds their changes). When SQLite rolls a batch back under us
// (a full disk at its commit), its records are applied again in a new one: what was said durable stays so.
import type { Database } from 'bun:sqlite'
import { RedoCapture, applyRedo, setRedoMark } from './redo-changes.ts'
import { REDO_FILE_BYTES, RedoLog, readRedo, redoAfter } from './redo-log.ts'
import { type Fsync, type Settle, WalFlush } from './wal-flush.ts'

/** How long a batch transaction stays open (another process that writes the database waits as long at most). */
export const REDO_BATCH_MS = 2000
/** A log's records are numbered in 31 bits (`user_version`): the next start, or a rotation here, begins another log. */
const MAX_SEQ = 2 ** 31 - 1

export class RedoBatch {
  private logId: number
  private log: RedoLog
  private readonly capture: RedoCapture
  private readonly flushes: [WalFlush, WalFlush]
  /** The last record written. */
  private seq = 0
  /** The records up to here are in the database, on disk. */
  private durableSeq = 0
  /** The last record the database names as held, committed; and the one the open batch's commit names. */
  private markedSeq = 0
  private markingSeq = 0

  constructor(
    private readonly db: Database,
    private readonly file: string,
    private readonly fsync?: Fsync,
  ) {
    this.logId = newLogId()
    this.capture = new RedoCapture(db)
    this.log = RedoLog.open(file, this.logId)
    this.flushes = [new WalFlush(this.log.files[0], fsync), new WalFlush(this.log.files[1], fsync)]
    this.nameLog()
  }

  /** At a batch's start: the capture follows a schema changed since (a migration run meanwhile). */
  opened(): void {
    this.capture.install()
  }

  /**
   * Writes what changed since the last record as the next record, and tells `then` once it is durable (with the
   * batch committed before it); false when it does not fit in the log: the caller commits the batch instead.
   */
  record(urgent: boolean, databaseFlush: WalFlush, then: Settle): boolean {
    const payload = this.capture.take()
    const earlier = databaseFlush.pending
    const settle: Settle = (error) => (error || !earlier ? then(error) : databaseFlush.whenFlushed(then))
    const flush = this.flushes[this.log.currentIndex]!
    if (payload === undefined) {
      flush.whenFlushed(settle)
      return true
    }
    // When it does not fit, its changes are still in the transaction: the batch's commit carries them.
    if (!this.write(payload)) return false
    if (urgent) flush.afterUrgentCommit(settle)
    else flush.afterCommit(settle)
    return true
  }

  /** Like `record`, flushed on this thread: everything written so far is durable when it returns true. */
  recordNow(databaseFlush: WalFlush): boolean {
    const payload = this.capture.take()
    if (payload !== undefined && !this.write(payload)) return false
    this.flushes[this.log.currentIndex]!.flushNow()
    if (databaseFlush.pending) databaseFlush.flushNow()
    return true
  }

  /** Before the COMMIT of a transaction that is no batch: its changes are in no record, the commit holds them. */
  forget(): void {
    this.capture.forget()
  }

  /** Before the batch's COMMIT: the database notes the last record it holds; the changes since go in the commit. */
  beforeCommit(): number {
    this.capture.forget()
    // Only when it moved: the mark is in the database's first page, which a commit would otherwise write for nothing
    // (an idle hub's periodic work changes no row, and writes nothing).
    if (this.seq !== this.markedSeq) setRedoMark(this.db, this.logId, this.seq)
    this.markingSeq = this.seq
    return this.seq
  }

  private write(payload: string): boolean {
    const seq = this.seq + 1
    if (seq >= MAX_SEQ || !this.log.append(seq, payload)) return false
    this.seq = seq
    return true
  }

  /** Whether the batch should be committed now: its records fill half the file (the other is free by the next). */
  get full(): boolean {
    return this.log.used >= REDO_FILE_BYTES / 2
  }

  /** The batch holding records up to `seq` is committed and on disk: the file before can be written again. */
  committed(seq: number): void {
    this.durableSeq = Math.max(this.durableSeq, seq)
    if (this.seq >= MAX_SEQ - 1_000_000) this.rotate()
  }

  /** The batch was committed (its flush may still run): the next records start the other file when it is free. */
  ended(): void {
    this.markedSeq = this.markingSeq
    this.log.switchIfFree(this.durableSeq)
  }

  /**
   * The batch was rolled back under us; the caller has opened a new transaction, in which its records are applied
   * again. Throws if they cannot be (they are on disk: the next start applies them).
   */
  reapply(): void {
    // Read back from the log (the page cache holds it): a batch's records are not kept in memory as well.
    if (this.seq === this.markedSeq) return
    const records = redoAfter(readRedo(this.file, this.logId), this.markedSeq)
    const last = records.at(-1)?.seq ?? this.markedSeq
    if (last !== this.seq) throw new Error(`the redo log lacks records ${last + 1} to ${this.seq}`)
    applyRedo(
      this.db,
      records.map((record) => record.payload),
    )
    this.capture.forget()
  }

  /** The flushes of the log's records still running, for what waits for every change made so far. */
  whenFlushed(then: Settle): void {
    let left = 2
    let failure: Error | undefined
    for (const flush of this.flushes) {
      flush.whenFlushed((error) => {
        failure ??= error
        if (--left === 0) then(failure)
      })
    }
  }

  /** The rows the capture inserted and deleted in its own table. */
  noise(): number {
    return this.capture.noise()
  }

  get pending(): boolean {
    return this.flushes.some((flush) => flush.pending)
  }

  close(): void {
    for (const flush of this.flushes) flush.close()
    this.log.close()
  }

  /** Another log, once the numbers run out: named in the database (flushed) before its first record. */
  private rotate(): void {
    if (this.db.inTransaction) return
    this.logId = newLogId()
    this.seq = 0
    this.durableSeq = 0
    this.markedSeq = 0
    this.markingSeq = 0
    for (const flush of this.flushes) flush.close()
    this.log.close()
    this.log = RedoLog.open(this.file, this.logId)
    this.flushes[0] = new WalFlush(this.log.files[0], this.fsync)
    this.flushes[1] = new WalFlush(this.log.files[1], this.fsync)
    this.nameLog()
  }

  /** The database names the log, in a commit flushed at once: its records count from now on. */
  private nameLog(): void {
    this.db.run('PRAGMA synchronous = FULL')
    this.db.transaction(() => setRedoMark(this.db, this.logId, 0)).immediate()
  }
}

function newLogId(): number {
  return 1 + (crypto.getRandomValues(new Uint32Array(1))[0]! % (2 ** 31 - 2))
}
