// What the hub forgets once it is old: finished jobs with everything that belongs to them (their
// documents and timelines go with them), printer status history, spent pairing codes, ended
// dashboard sessions. A few rows at a time, each step riding along with the group commit (a
// deletion a crash takes back is simply done again), so the writer is never held for long and
// pruning costs no flush of its own; unfinished jobs are never deleted (they end by expiry first).
import type { Database } from 'bun:sqlite'
import { JOB_STATE_SETS } from '../domain/job-transitions.ts'
import type { GroupCommit } from '../sqlite/group-commit.ts'
import { stateIn } from './sql.ts'
import { bound } from '../sqlite/bound.ts'

export interface Pruned {
  jobs: number
  /** Status history rows, pairing codes and dashboard sessions. */
  records: number
}

export class Retention {
  private readonly oldJobs
  private readonly deleteJob
  private readonly overBudget
  private readonly oldestOfProject

  constructor(
    private readonly db: Database,
    private readonly commits: GroupCommit,
  ) {
    // Oldest first along the index of creation times; a finished job is at least as old as its creation.
    this.oldJobs = db.query<{ seq: number }, [number, number]>(
      `SELECT seq FROM jobs WHERE created_at < ? AND ${stateIn(JOB_STATE_SETS.terminal)} ORDER BY created_at LIMIT ?`,
    )
    // Its document (job_documents) and timeline (job_events) go with it: ON DELETE CASCADE.
    this.deleteJob = db.query<never, [number]>(`DELETE FROM jobs WHERE seq = ? AND ${stateIn(JOB_STATE_SETS.terminal)}`)
    this.overBudget = db.query<{ id: string; finished_bytes: number }, [number]>(
      'SELECT id, finished_bytes FROM projects WHERE finished_bytes > ? ORDER BY finished_bytes DESC',
    )
    // Oldest first along the project's index of jobs (the unfinished ones among them are few, at most its limit);
    // a document's bytes from its record's header (octet_length), without reading the document.
    this.oldestOfProject = db.query<{ seq: number; bytes: number }, [string, number]>(
      `SELECT j.seq, COALESCE((SELECT octet_length(d.document) FROM job_documents d WHERE d.job_seq = j.seq), 0)
         AS bytes
       FROM jobs j WHERE j.project_id = ${bound()} AND ${stateIn(JOB_STATE_SETS.terminal, 'j.state')}
       ORDER BY j.seq LIMIT ?`,
    )
  }

  /** The bytes of the project's finished jobs' documents. */
  finishedBytes(projectId: string): number {
    return (
      this.db
        .query<{ finished_bytes: number }, [string]>('SELECT finished_bytes FROM projects WHERE id = ?')
        .get(projectId)?.finished_bytes ?? 0
    )
  }

  /** Projects whose finished jobs' documents hold more than `limitBytes`, the largest first. */
  projectsOverBudget(limitBytes: number): { projectId: string; finishedBytes: number }[] {
    return this.overBudget.all(limitBytes).map((row) => ({ projectId: row.id, finishedBytes: row.finished_bytes }))
  }

  /**
   * Deletes the project's oldest finished jobs until their documents make up `bytes` (or `limit`
   * jobs were deleted); how many it deleted.
   */
  pruneOldestOfProject(projectId: string, bytes: number, limit: number): number {
    const due: { seq: number }[] = []
    let freed = 0
    for (const job of this.oldestOfProject.all(projectId, limit)) {
      if (freed >= bytes) break
      due.push(job)
      freed += job.bytes
    }
    if (due.length === 0) return 0
    return this.commits.defer(() => due.reduce((deleted, { seq }) => deleted + this.deleteJob.run(seq).changes, 0))
  }

  /** Deletes at most `limit` finished jobs created before `before`; how many it deleted. */
  pruneJobs(before: number, limit: number): number {
    const due = this.oldJobs.all(before, limit)
    if (due.length === 0) return 0
    return this.commits.defer(() => due.reduce((deleted, { seq }) => deleted + this.deleteJob.run(seq).changes, 0))
  }

  /**
   * Deletes, at most `limit` of each: printer status changes before `before` (but each printer's
   * latest, which is its state now), pairing codes that ended before it, and dashboard sessions
   * that ended before it.
   */
  pruneRecords(before: number, limit: number): number {
    return this.commits.defer(() => {
      const states = this.db.run(
        `DELETE FROM printer_states WHERE rowid IN (
           SELECT s.rowid FROM printer_states s
           WHERE s.at < ?1 AND EXISTS (SELECT 1 FROM printer_states n
             WHERE n.agent_id = s.agent_id AND n.printer_id = s.printer_id AND n.at > s.at)
           LIMIT ?2)`,
        [before, limit],
      ).changes
      const codes = this.db.run(
        `DELETE FROM pairing_codes WHERE rowid IN (SELECT rowid FROM
          pairing_codes WHERE coalesce(consumed_at, expires_at) < ?1 AND
          expires_at < ?1 LIMIT ?2)`,
        [before, limit],
      ).changes
      const sessions = this.db.run(
        `DELETE FROM admin_sessions WHERE rowid IN (SELECT rowid FROM
          admin_sessions WHERE coalesce(revoked_at, expires_at) < ?1 AND
          expires_at < ?1 LIMIT ?2)`,
        [before, limit],
      ).changes
      return states + codes + sessions
    })
  }

  /** Forgets at most `limit` pruned jobs (by ID) created before `before`; how many. */
  forgetPrunedJobs(before: number, limit: number): number {
    return this.commits.defer(
      () =>
        this.db.run(
          `DELETE FROM pruned_jobs WHERE id IN (SELECT id FROM pruned_jobs INDEXED
            BY pruned_jobs_by_age WHERE created_at < ? ORDER BY created_at LIMIT ?)`,
          [before, limit],
        ).changes,
    )
  }

  /** Gives up to `pages` free pages of the file back to the file system (the database keeps its size otherwise). */
  releaseSpace(pages: number): void {
    this.commits.commit()
    this.db.run(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(pages))})`)
  }

  /** Pages the file holds that no row uses. */
  freePages(): number {
    return this.db.query<{ freelist_count: number }, []>('PRAGMA freelist_count').get()!.freelist_count
  }
}
