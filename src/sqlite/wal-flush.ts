// The flush that makes group commits durable, off the event loop. In WAL mode a commit only
// appends to the write-ahead log; with `synchronous = FULL` SQLite then calls fsync(2) itself, on
// the thread that committed, and a busy hub spent about a third of its event loop waiting for the
// disk there. The group commit's transactions commit with `synchronous = NORMAL` instead (no flush
// at commit; checkpoints are still flushed before and after, so the database file stays sound) and
// this class flushes the log with fsync(2) on the runtime's thread pool, then settles what waited
// for those commits. One flush serves every commit made before it started; commits made while it
// runs share the next one.
import { closeSync, fsync, fsyncSync, openSync } from 'node:fs'

/** Told once the commits it waited for are on disk, or that they may not be (the flush failed). */
export type Settle = (error?: Error) => void

export type Fsync = (fd: number, done: (error: Error | null) => void) => void

export class WalFlush {
  private fd: number | undefined
  /** Committed, waiting for a flush that has not started. */
  private queued: Settle[] = []
  /** Waiting for the flush that runs now; undefined while none runs. */
  private running: Settle[] | undefined
  private closed = false

  constructor(
    /** The database's write-ahead log, `FILE-wal`. */
    private readonly walFile: string,
    private readonly flush: Fsync = fsync,
  ) {}

  /** After a commit: `settle` runs once a flush started after it has ended. */
  afterCommit(settle: Settle): void {
    this.queued.push(settle)
    if (!this.running) this.start()
  }

  /** Settles once every commit made so far is flushed (at once when none waits). */
  whenFlushed(settle: Settle): void {
    if (this.queued.length > 0) this.queued.push(settle)
    else if (this.running) this.running.push(settle)
    else settle()
  }

  /** Whether commits wait for a flush. */
  get pending(): boolean {
    return this.queued.length > 0 || this.running !== undefined
  }

  /** Flushes now, on this thread: every commit made so far is on disk when this returns. */
  flushNow(): void {
    const settled = this.queued
    this.queued = []
    try {
      fsyncSync(this.open())
    } catch (error) {
      for (const settle of settled) settle(error as Error)
      throw error
    }
    for (const settle of settled) settle()
  }

  /** Closes the log's file, once the flush that runs has ended (the store flushes what it committed first). */
  close(): void {
    this.closed = true
    if (!this.running) this.closeFile()
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
    this.running = batch
    this.flush(fd, (error) => {
      const settled = this.running!
      this.running = undefined
      if (this.closed) this.closeFile()
      for (const settle of settled) settle(error ?? undefined)
      if (this.queued.length > 0) this.start()
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
    try {
      closeSync(this.fd)
    } catch {
      // Closed already.
    }
    this.fd = undefined
  }
}
