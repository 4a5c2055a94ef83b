// What the cluster forgets once it is old, on PostgreSQL (the SQLite store's: store/retention.ts): finished jobs with
// their documents and timelines (ON DELETE CASCADE; the triggers remember them as pruned and keep the counters),
// printer status history, spent pairing codes, ended sessions; a few rows a statement.
import type { SQL } from 'bun'
import { JOB_STATE_SETS } from '../domain/job-transitions.ts'
import type { RetentionRepository } from '../storage/repositories.ts'
import { type Big, int } from '../storage/rows.ts'

const terminal = (column = 'state') => `${column} IN (${JOB_STATE_SETS.terminal.map((s) => `'${s}'`).join(', ')})`

export class PgRetention implements RetentionRepository {
  constructor(private readonly sql: SQL) {}

  async pruneJobs(before: number, limit: number): Promise<number> {
    const gone = await this.sql`DELETE FROM jobs WHERE seq IN (SELECT seq FROM jobs
        WHERE created_at < ${before} AND ${this.sql.unsafe(terminal())} ORDER BY created_at LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      RETURNING seq`
    return gone.length
  }

  async projectsOverBudget(limitBytes: number): Promise<{ projectId: string; finishedBytes: number }[]> {
    const rows = await this.sql<{ id: string; finished_bytes: Big }[]>`SELECT id, finished_bytes FROM projects
      WHERE finished_bytes > ${limitBytes} ORDER BY finished_bytes DESC`
    return rows.map((row) => ({ projectId: row.id, finishedBytes: int(row.finished_bytes) }))
  }

  async finishedBytes(projectId: string): Promise<number> {
    const [row] = await this.sql<{ n: Big }[]>`SELECT finished_bytes AS n FROM projects WHERE id = ${projectId}`
    return row ? int(row.n) : 0
  }

  async pruneOldestOfProject(projectId: string, bytes: number, limit: number): Promise<number> {
    const oldest = await this.sql<{ seq: Big; bytes: Big }[]>`SELECT j.seq,
        coalesce((SELECT octet_length(d.document) FROM job_documents d WHERE d.job_seq = j.seq), 0) AS bytes
      FROM jobs j WHERE j.project_id = ${projectId} AND ${this.sql.unsafe(terminal('j.state'))}
      ORDER BY j.seq LIMIT ${limit}`
    const due: number[] = []
    let freed = 0
    for (const job of oldest) {
      if (freed >= bytes) break
      due.push(int(job.seq))
      freed += int(job.bytes)
    }
    if (due.length === 0) return 0
    const gone = await this.sql`DELETE FROM jobs WHERE seq IN ${this.sql(due)} AND ${this.sql.unsafe(terminal())}
      RETURNING seq`
    return gone.length
  }

  async pruneRecords(before: number, limit: number): Promise<number> {
    const states = await this.sql`DELETE FROM printer_states WHERE seq IN (SELECT s.seq FROM printer_states s
        WHERE s.at < ${before} AND EXISTS (SELECT 1 FROM printer_states n
          WHERE n.agent_id = s.agent_id AND n.printer_id = s.printer_id AND n.at > s.at)
        LIMIT ${limit})
      RETURNING seq`
    const codes = await this.sql`DELETE FROM pairing_codes WHERE code_hash IN (SELECT code_hash FROM pairing_codes
        WHERE coalesce(consumed_at, expires_at) < ${before} AND expires_at < ${before} LIMIT ${limit})
      RETURNING code_hash`
    const sessions = await this.sql`DELETE FROM admin_sessions WHERE id IN (SELECT id FROM admin_sessions
        WHERE coalesce(revoked_at, expires_at) < ${before} AND expires_at < ${before} LIMIT ${limit})
      RETURNING id`
    return states.length + codes.length + sessions.length
  }

  async forgetPrunedJobs(before: number, limit: number): Promise<number> {
    const gone = await this.sql`DELETE FROM pruned_jobs WHERE id IN (SELECT id FROM pruned_jobs
        WHERE created_at < ${before} ORDER BY created_at LIMIT ${limit})
      RETURNING id`
    return gone.length
  }
}
