// Tells a node's event streams that a project has new events, whichever node wrote them: at once by the hint the
// writing transaction sent (hints.ts), and, should a hint be lost (the listening connection dropped and came back),
// by a look every POLL_MS at the events written since the last look.
import type { PgStore } from './pg-store.ts'

/** How often the events written since the last look are looked for, whatever hints came. */
const POLL_MS = 1_000

export class PgEventSignal {
  private readonly listeners = new Set<(projectId: string) => void>()
  private timer: Timer | undefined
  private unlisten: (() => Promise<void>) | undefined
  /** The newest event ID seen by the last look (undefined before the first). */
  private seen: number | undefined

  constructor(private readonly store: PgStore) {}

  /** Calls `listener` with a project's ID whenever it has new events; returns how to stop. */
  listen(listener: (projectId: string) => void): () => void {
    this.listeners.add(listener)
    if (this.listeners.size === 1) this.start()
    return () => {
      this.listeners.delete(listener)
      if (this.listeners.size === 0) this.stop()
    }
  }

  private start(): void {
    void this.store
      .listen((hint) => {
        if (hint.startsWith('events:')) this.tell(hint.slice('events:'.length))
      })
      .then(
        (unlisten) => {
          if (this.listeners.size === 0) return void unlisten()
          this.unlisten = unlisten
        },
        // Without hints, the looks alone tell (within POLL_MS).
        () => {},
      )
    this.timer = setInterval(() => void this.look().catch(() => {}), POLL_MS)
  }

  private stop(): void {
    clearInterval(this.timer)
    void this.unlisten?.().catch(() => {})
    this.unlisten = undefined
  }

  private async look(): Promise<void> {
    const since = await this.store.eventsSince(this.seen)
    const first = this.seen === undefined
    this.seen = since.newest
    if (!first) for (const projectId of since.projects) this.tell(projectId)
  }

  private tell(projectId: string): void {
    for (const listener of this.listeners) {
      try {
        listener(projectId)
      } catch {
        // A reader's failure is its own.
      }
    }
  }
}
