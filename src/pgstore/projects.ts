// Projects on PostgreSQL: the same records as the SQLite store's (store/projects.ts).
import type { SQL } from 'bun'
import type { Project } from '../domain/records.ts'
import { newId } from '../storage/ids.ts'
import type { ProjectRepository } from '../storage/repositories.ts'
import { projectOf, type ProjectRow } from '../storage/rows.ts'

export class PgProjects implements ProjectRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  async create(name: string): Promise<Project> {
    const [row] = await this.sql<ProjectRow[]>`INSERT INTO projects (id, name, created_at)
      VALUES (${newId('prj')}, ${name}, ${this.now()}) RETURNING id, name, open_jobs, created_at`
    return projectOf(row!)
  }

  async get(id: string): Promise<Project | undefined> {
    const [row] = await this.sql<ProjectRow[]>`SELECT id, name, open_jobs, created_at FROM projects WHERE id = ${id}`
    return row ? projectOf(row) : undefined
  }

  async list(): Promise<Project[]> {
    const rows = await this.sql<ProjectRow[]>`SELECT id, name, open_jobs, created_at FROM projects
      ORDER BY created_at, id`
    return rows.map(projectOf)
  }
}
