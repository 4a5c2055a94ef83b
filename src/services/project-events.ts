// Each project's events as applications read them (the public API's stream): told when a project has
// new ones, read after a point as ready-made Server-Sent Events frames, where the log starts now and
// what retention has pruned. Reads only: events are written by the changes they tell of, in the
// same transaction (store/events.ts, pgstore/events.ts).
import type { UnitRunner } from '../storage/repositories.ts'

/** Who tells of a project's new events once they are committed: the SQLite store itself, or a cluster's hints. */
export interface EventSignal {
  /** Calls `listener` with a project's ID whenever it has new events; returns how to stop. */
  listen(listener: (projectId: string) => void): () => void
}

export class ProjectEvents {
  constructor(
    private readonly units: UnitRunner,
    private readonly signal: EventSignal,
  ) {}

  /** Calls `listener` with a project's ID whenever it has new events (once committed); returns how to stop. */
  listen(listener: (projectId: string) => void): () => void {
    return this.signal.listen(listener)
  }

  /** The project's events after `afterId`, oldest first, at most `limit`, each as its frame. */
  frames(projectId: string, afterId: number, limit: number): Promise<{ id: number; frame: string }[]> {
    return this.units.read((db) => db.events.frames(projectId, afterId, limit))
  }

  /** The ID of the project's newest event (0: none yet): a stream without a point to resume from starts after it. */
  newest(projectId: string): Promise<number> {
    return this.units.read((db) => db.events.newest(projectId))
  }

  /** The newest of the project's events that retention deleted (0: none). */
  prunedThrough(projectId: string): Promise<number> {
    return this.units.read((db) => db.events.prunedThrough(projectId))
  }
}
