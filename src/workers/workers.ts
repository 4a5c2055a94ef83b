// The one place the hub's background work is scheduled: each worker's passes (retention, failover's watch, the
// webhooks' outbox, the disk's free space, the scheduled backups, the settings another process saved), one at a
// time per worker, the next one a period after the last ended (a slow pass never piles up behind itself), a pass that
// fails logged and tried again at its next turn; started together, and stopped together, each stop waiting for its
// worker's pass under way.
import { describeError, type Logger } from '../platform/log.ts'

export interface Worker {
  /** What the log calls it ("retention", "failover"). */
  readonly name: string
  /** Where its failed passes are told (its own component), when not to the workers' log. */
  readonly log?: Logger
  /** The wait between the end of one pass and the start of the next; none: a worker without passes. */
  readonly everyMs?: number
  /** The wait before the first pass (everyMs when not said). */
  readonly firstAfterMs?: number
  /** One pass; the next is not scheduled before it settles. Aborted: the hub is stopping, so end soon. */
  pass?(signal: AbortSignal): unknown
  /** Started with the others; `wake` asks for a pass as soon as none runs (news the worker listens for). */
  start?(wake: () => void): void
  /**
   * Stopped with the hub, while a pass under way ends (the stop may cut it short): what it holds let go (a thread, a
   * listener, requests or a backup's process under way).
   */
  stop?(): void | Promise<void>
}

interface Running {
  worker: Worker
  timer: Timer | undefined
  pass: Promise<unknown> | undefined
  /** Woken while a pass ran: another follows it at once. */
  again: boolean
}

export class Workers {
  private readonly running: Running[] = []
  private readonly stopping = new AbortController()
  private started = false

  constructor(private readonly log: Logger) {}

  /** Adds a worker (before start). */
  add(worker: Worker): this {
    if (this.started) throw new Error(`worker ${worker.name} added after the workers started`)
    this.running.push({ worker, timer: undefined, pass: undefined, again: false })
    return this
  }

  /** Each worker started, in the order added, its first pass scheduled. */
  start(): void {
    this.started = true
    for (const entry of this.running) {
      entry.worker.start?.(() => this.wake(entry))
      const first = entry.worker.firstAfterMs ?? entry.worker.everyMs
      if (first !== undefined) this.schedule(entry, first)
    }
  }

  /** No pass starts any more; passes under way are told to end, each worker is stopped, and both are waited for. */
  async stop(): Promise<void> {
    this.stopping.abort()
    for (const entry of this.running) clearTimeout(entry.timer)
    await Promise.all(this.running.flatMap((entry) => [entry.pass, entry.worker.stop?.()]))
  }

  private schedule(entry: Running, ms: number): void {
    if (this.stopping.signal.aborted) return
    clearTimeout(entry.timer)
    entry.timer = setTimeout(() => this.run(entry), ms)
  }

  private wake(entry: Running): void {
    if (entry.pass) entry.again = true
    else this.schedule(entry, 0)
  }

  private run(entry: Running): void {
    const { worker } = entry
    if (this.stopping.signal.aborted || !worker.pass) return
    entry.again = false
    entry.pass = (async () => worker.pass!(this.stopping.signal))()
      .catch((error: unknown) =>
        (worker.log ?? this.log).error(
          `a ${worker.name} pass failed; the next one tries again`,
          { worker: worker.name, error: describeError(error) },
          { limit: `${worker.name} failed` },
        ),
      )
      .finally(() => {
        entry.pass = undefined
        if (entry.again) this.schedule(entry, 0)
        else if (worker.everyMs !== undefined) this.schedule(entry, worker.everyMs)
      })
  }
}
