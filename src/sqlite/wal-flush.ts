// The flush that makes group commits durable, off the event loop. In WAL mode a commit only
// appends to the write-ahead log; with `synchronous = FULL` SQLite then calls fsync(2) itself, on
// the thread that committed, and a busy hub spent about a third of its event loop waiting for the
// disk there. The group commit's transactions commit with `synchronous = NORMAL` instead (no flush
// at commit; checkpoints are still flushed before and after, so the database file stays sound) and
// this class flushes the log with fdatasync(2) on the runtime's thread pool, then settles what waited
// for those commits. fdatasync, as SQLite's own flushes on Linux: the log's bytes and what reading them
// back needs (its size), not its times, which would write the file's inode to the disk (an SD card)
// each time. One flush serves every commit made before it started; commits made while it runs share
// the next one, except a commit whose wait holds up something urgent (the intent to
// print, which a job's first byte waits for): its flush starts at once, beside the one running.
import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs'

/** Told once the commits it waited for are on disk, or that they may not be (the flush failed). */
export type Settle = (error?: Error) => void

export type Fsync = (fd: number, done: (error: Error | null) => void) => void

export class WalFlush {
  private fd: number | undefined
  /** Committed, waiting for a flush that has not started. */
  private queued: Settle[] = []
  /** The flushes running now (more than one when an urgent one started beside another), each with what waits for it. */
  private readonly running = new Set<Settle[]>()
  private closed = false
  /** Files of a log made anew while a flush of them ran: closed once no flush runs. */
  private readonly retired: number[] = []

  constructor(
    /** The database's write-ahead log, `FILE-wal`. */
    private readonly walFile: string,
    private readonly flush: Fsync = fdatasync,
  ) {}

  /** After a commit: `settle` runs once a flush started after it has ended. */
  afterCommit(settle: Settle): void {
    this.queued.push(settle)
    if (this.running.size === 0) this.start()
  }

  /**
   * After a commit something urgent waits for: `settle` runs once a flush started at once, beside any running, has
   * ended.
   */
  afterUrgentCommit(settle: Settle): void {
    this.queued.push(settle)
    this.start()
  }

  /** Settles once every commit made so far is flushed (at once when none waits). */
  whenFlushed(settle: Settle): void {
    if (this.queued.length > 0) return void this.queued.push(settle)
    if (this.running.size === 0) return settle()
    // Every flush running now: together they hold every commit made so far.
    let left = this.running.size
    let failure: Error | undefined
    for (const batch of this.running) {
      batch.push((error) => {
        failure ??= error
        if (--left === 0) settle(failure)
      })
    }
  }

  /** Whether commits wait for a flush. */
  get pending(): boolean {
    return this.queued.length > 0 || this.running.size > 0
  }

  /** Flushes now, on this thread: every commit made so far is on disk when this returns. */
  flushNow(): void {
    const settled = this.queued
    this.queued = []
    try {
      fdatasyncSync(this.open())
    } catch (error) {
      for (const settle of settled) settle(error as Error)
      throw error
    }
    for (const settle of settled) settle()
  }

  /**
   * The log's file was made anew (SQLite deleted it when the journal mode changed, and made another): the next flush
   * opens the new one. Every commit made so far is in the database file by then (the change of mode checkpointed).
   */
  reopen(): void {
    const fd = this.fd
    if (fd === undefined) return
    this.fd = undefined
    if (this.running.size === 0) closeQuietly(fd)
    else this.retired.push(fd)
  }

  /** Closes the log's file, once the flush that runs has ended (the store flushes what it committed first). */
  close(): void {
    this.closed = true
    if (this.running.size === 0) this.closeFile()
  }

  private start(): void {
    const batch = this.queued
    this.queued = []
    let fd: number
    try {
      fd = this.open()
    } catch (error) {
      for (const settle of batch) settle(error as Error)
      return
    }
    this.running.add(batch)
    this.flush(fd, (error) => {
      this.running.delete(batch)
      if (this.running.size === 0) for (const old of this.retired.splice(0)) closeQuietly(old)
      if (this.closed && this.running.size === 0) this.closeFile()
      for (const settle of batch) settle(error ?? undefined)
      if (this.queued.length > 0 && this.running.size === 0) this.start()
    })
  }

  /**
   * The log's file, opened at the first flush (a commit has made it by then) and kept: SQLite
   * deletes the log only when its last connection closes, and this one is open until close().
   */
  private open(): number {
    this.fd ??= openSync(this.walFile, 'r')
    return this.fd
  }

  private closeFile(): void {
    if (this.fd === undefined) return
    closeQuietly(this.fd)
    this.fd = undefined
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // Closed already.
  }
}
