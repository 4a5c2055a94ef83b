import type { Database } from 'bun:sqlite'
import { newId } from '../storage/ids.ts'
import { iso } from '../storage/time.ts'
import type { Project } from '../domain/records.ts'
import type { ProjectRepository } from '../storage/repositories.ts'

export type { Project }

interface ProjectRow {
  id: string
  name: string
  open_jobs: number
  created_at: number
}

const toProject = (row: ProjectRow): Project => ({
  id: row.id,
  name: row.name,
  openJobs: row.open_jobs,
  createdAt: iso(row.created_at),
})

export class Projects implements ProjectRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {}

  create(name: string): Project {
    const row = this.db
      .query<ProjectRow, [string, string, number]>(
        'INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?) RETURNING *',
      )
      .get(newId('prj'), name, this.now())!
    return toProject(row)
  }

  get(id: string): Project | undefined {
    const row = this.db.query<ProjectRow, [string]>('SELECT * FROM projects WHERE id = ?').get(id)
    return row ? toProject(row) : undefined
  }

  list(): Project[] {
    return this.db.query<ProjectRow, []>('SELECT * FROM projects ORDER BY created_at, id').all().map(toProject)
  }
}
