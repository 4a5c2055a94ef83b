// Each project's stored images: uploaded once (a logo), named by documents' logo sections, copied
// into each job that names them when it is made (so a job prints what it was made with, even after
// the image is replaced or deleted).
import type { Database } from 'bun:sqlite'
import type { ImageMediaType } from '../protocol/image.ts'
import { imageOf, type ImageRow } from '../storage/rows.ts'
import type { ImageRepository } from '../storage/repositories.ts'
import { bound } from '../sqlite/bound.ts'
import type { StoredImage } from '../domain/records.ts'

export type { StoredImage }

/** A stored image without its data: its size is worked out from the base64's length and padding. */

const ROW = 'name, media_type, length(data) AS data_length, substr(data, -2) AS data_tail, width, height, updated_at'

export class ProjectImages implements ImageRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {}

  /** Stores (or replaces) the project's image of this name; whether it was new. */
  put(
    projectId: string,
    name: string,
    image: { mediaType: ImageMediaType; data: string; width: number; height: number },
  ): { created: boolean; image: StoredImage } {
    const created = !this.db
      .query<{ one: number }, [string, string]>('SELECT 1 AS one FROM project_images WHERE project_id = ? AND name = ?')
      .get(projectId, name)
    const row = this.db
      .query<ImageRow, [string, string, string, string, number, number, number]>(
        `INSERT INTO project_images (project_id, name, media_type, data, width, height, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (project_id, name) DO UPDATE SET media_type = excluded.media_type, data = excluded.data,
           width = excluded.width, height = excluded.height, updated_at = excluded.updated_at
         RETURNING ${ROW}`,
      )
      .get(projectId, name, image.mediaType, image.data, image.width, image.height, this.now())!
    return { created, image: imageOf(row) }
  }

  /** The image's data, as an image section carries it; undefined when the project has none of that name. */
  data(projectId: string, name: string): { mediaType: ImageMediaType; data: string } | undefined {
    const row = this.db
      .query<{ media_type: ImageMediaType; data: string }, [string, string]>(
        'SELECT media_type, data FROM project_images WHERE project_id = ? AND name = ?',
      )
      .get(projectId, name)
    return row ? { mediaType: row.media_type, data: row.data } : undefined
  }

  /** The project's images, without their data. */
  list(projectId: string): StoredImage[] {
    return this.db
      .query<ImageRow, [string]>(`SELECT ${ROW} FROM project_images WHERE project_id = ${bound()} ORDER BY name`)
      .all(projectId)
      .map(imageOf)
  }

  /** One of the project's images, without its data. */
  get(projectId: string, name: string): StoredImage | undefined {
    const row = this.db
      .query<ImageRow, [string, string]>(`SELECT ${ROW} FROM project_images WHERE project_id = ? AND name = ?`)
      .get(projectId, name)
    return row ? imageOf(row) : undefined
  }

  count(projectId: string): number {
    return this.db
      .query<{ n: number }, [string]>('SELECT count(*) AS n FROM project_images WHERE project_id = ?')
      .get(projectId)!.n
  }

  delete(projectId: string, name: string): boolean {
    return this.db.run('DELETE FROM project_images WHERE project_id = ? AND name = ?', [projectId, name]).changes === 1
  }
}
