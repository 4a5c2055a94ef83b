import type { Database } from 'bun:sqlite'
import { newId } from '../storage/ids.ts'
import { projectOf, type ProjectRow } from '../storage/rows.ts'
import type { Project } from '../domain/records.ts'
import type { ProjectRepository } from '../storage/repositories.ts'

export type { Project }

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
    return projectOf(row)
  }

  get(id: string): Project | undefined {
    const row = this.db.query<ProjectRow, [string]>('SELECT * FROM projects WHERE id = ?').get(id)
    return row ? projectOf(row) : undefined
  }

  list(): Project[] {
    return this.db.query<ProjectRow, []>('SELECT * FROM projects ORDER BY created_at, id').all().map(projectOf)
  }
}
