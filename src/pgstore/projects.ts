// Projects on PostgreSQL: the same records as the SQLite store's (store/projects.ts).
import type { SQL } from 'bun'
import type { Project } from '../domain/records.ts'
import { newId } from '../storage/ids.ts'
import type { ProjectRepository } from '../storage/repositories.ts'
import { int, time } from './rows.ts'

interface ProjectRow {
  id: string
  name: string
  open_jobs: string
  created_at: string
}

const toProject = (row: ProjectRow): Project => ({
  id: row.id,
  name: row.name,
  openJobs: int(row.open_jobs),
  createdAt: time(row.created_at),
})

export class PgProjects implements ProjectRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  async create(name: string): Promise<Project> {
    const [row] = await this.sql<ProjectRow[]>`INSERT INTO projects (id, name, created_at)
      VALUES (${newId('prj')}, ${name}, ${this.now()}) RETURNING id, name, open_jobs, created_at`
    return toProject(row!)
  }

  async get(id: string): Promise<Project | undefined> {
    const [row] = await this.sql<ProjectRow[]>`SELECT id, name, open_jobs, created_at FROM projects WHERE id = ${id}`
    return row ? toProject(row) : undefined
  }

  async list(): Promise<Project[]> {
    const rows = await this.sql<ProjectRow[]>`SELECT id, name, open_jobs, created_at FROM projects
      ORDER BY created_at, id`
    return rows.map(toProject)
  }
}
