// A project's stored images on PostgreSQL: the same records as the SQLite store's (store/images.ts).
import type { SQL } from 'bun'
import type { StoredImage } from '../domain/records.ts'
import type { ImageMediaType } from '../protocol/image.ts'
import type { ImageRepository } from '../storage/repositories.ts'
import { imageOf, type ImageRow } from '../storage/rows.ts'

const ROW = 'name, media_type, length(data) AS data_length, right(data, 2) AS data_tail, width, height, updated_at'

export class PgImages implements ImageRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  async put(
    projectId: string,
    name: string,
    image: { mediaType: ImageMediaType; data: string; width: number; height: number },
  ): Promise<{ created: boolean; image: StoredImage }> {
    // xmax is 0 for a row this statement inserted, and not for one it updated.
    const [row] = await this.sql<(ImageRow & { created: boolean })[]>`INSERT INTO project_images
        (project_id, name, media_type, data, width, height, updated_at)
      VALUES (${projectId}, ${name}, ${image.mediaType}, ${image.data}, ${image.width}, ${image.height}, ${this.now()})
      ON CONFLICT (project_id, name) DO UPDATE SET media_type = excluded.media_type, data = excluded.data,
        width = excluded.width, height = excluded.height, updated_at = excluded.updated_at
      RETURNING ${this.sql.unsafe(ROW)}, (xmax = 0) AS created`
    return { created: row!.created, image: imageOf(row!) }
  }

  async list(projectId: string): Promise<StoredImage[]> {
    const rows = await this.sql<ImageRow[]>`SELECT ${this.sql.unsafe(ROW)} FROM project_images
      WHERE project_id = ${projectId} ORDER BY name`
    return rows.map(imageOf)
  }

  async get(projectId: string, name: string): Promise<StoredImage | undefined> {
    const [row] = await this.sql<ImageRow[]>`SELECT ${this.sql.unsafe(ROW)} FROM project_images
      WHERE project_id = ${projectId} AND name = ${name}`
    return row ? imageOf(row) : undefined
  }

  async count(projectId: string): Promise<number> {
    const [row] = await this.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM project_images
      WHERE project_id = ${projectId}`
    return row!.n
  }

  async delete(projectId: string, name: string): Promise<boolean> {
    const rows = await this.sql`DELETE FROM project_images WHERE project_id = ${projectId} AND name = ${name}
      RETURNING name`
    return rows.length === 1
  }

  async data(projectId: string, name: string): Promise<{ mediaType: ImageMediaType; data: string } | undefined> {
    const [row] = await this.sql<{ media_type: ImageMediaType; data: string }[]>`SELECT media_type, data
      FROM project_images WHERE project_id = ${projectId} AND name = ${name}`
    return row ? { mediaType: row.media_type, data: row.data } : undefined
  }
}
