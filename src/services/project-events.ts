// Each project's events as applications read them (the public API's stream): told when a project has
// new ones, read after a point as ready-made Server-Sent Events frames, where the log starts now and
// what retention has pruned. Reads only: events are written by the changes they tell of, in the
// same transaction (store/events.ts).
import type { Store } from '../store/store.ts'

export class ProjectEvents {
  constructor(private readonly store: Store) {}

  /** Calls `listener` with a project's ID whenever it has new events (once committed); returns how to stop. */
  listen(listener: (projectId: string) => void): () => void {
    return this.store.events.listen(listener)
  }

  /** The project's events after `afterId`, oldest first, at most `limit`, each as its frame. */
  frames(projectId: string, afterId: number, limit: number): { id: number; frame: string }[] {
    return this.store.events.frames(projectId, afterId, limit)
  }

  /** The ID of the project's newest event (0: none yet): a stream without a point to resume from starts after it. */
  newest(projectId: string): number {
    return this.store.events.newest(projectId)
  }

  /** The newest of the project's events that retention deleted (0: none). */
  prunedThrough(projectId: string): number {
    return this.store.events.prunedThrough(projectId)
  }
}
