// A project's stored images (logos) as applications upload and delete them (the public API): the
// image checked to be what it says (its header), at most MAX_PROJECT_IMAGES a project, nothing new
// while the disk is full. Each change written to the audit log with it. Jobs already made keep their
// copy. Outcomes are values; the edge says them.
import type { StoredImage } from '../domain/records.ts'
import { type ImageMediaType, imageHeader } from '../protocol/image.ts'
import { MAX_PROJECT_IMAGES } from '../protocol/project-images.ts'
import type { UnitRunner } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'
import type { Actor } from './actor.ts'
import { recordedChange } from './audit.ts'
import type { Capacity } from './jobs.ts'

export type PutImageOutcome =
  | { kind: 'stored'; created: boolean; image: StoredImage }
  /** The disk is (nearly) full: nothing was written. */
  | { kind: 'storage_full' }
  /** The data is not the image it says it is (why, in words). */
  | { kind: 'invalid'; message: string }
  /** The project keeps MAX_PROJECT_IMAGES already, and this is a new one. */
  | { kind: 'too_many' }

export class ImageService {
  constructor(
    private readonly units: UnitRunner,
    private readonly capacity: Capacity,
  ) {}

  /** A project's images, without their data. */
  list(projectId: string): Promise<StoredImage[]> {
    return this.units.read((db) => db.images.list(projectId))
  }

  get(projectId: string, name: string): Promise<StoredImage | undefined> {
    return this.units.read((db) => db.images.get(projectId, name))
  }

  /** Stores (or replaces) the project's image of this name. */
  async put(
    actor: Actor,
    projectId: string,
    name: string,
    image: { mediaType: ImageMediaType; data: string },
  ): Promise<PutImageOutcome> {
    if (this.capacity.now().full) return { kind: 'storage_full' }
    const size = imageHeader(image.mediaType, image.data)
    if (typeof size === 'string') return { kind: 'invalid', message: size }
    return this.units.write(function* (db): Unit<PutImageOutcome> {
      // Counted in the change itself: two new images at once cannot both be the last one allowed.
      const known = (yield* db.images.get(projectId, name)) !== undefined
      if (!known && (yield* db.images.count(projectId)) >= MAX_PROJECT_IMAGES) return { kind: 'too_many' }
      const { created, image: stored } = yield* db.images.put(projectId, name, { ...image, ...size })
      yield* recordedChange(db, { actor, action: 'images.put', target: name })
      return { kind: 'stored', created, image: stored }
    })
  }

  /** Deletes the project's image of this name; false when it has none. */
  delete(actor: Actor, projectId: string, name: string): Promise<boolean> {
    return this.units.write(function* (db): Unit<boolean> {
      if (!(yield* db.images.delete(projectId, name))) return false
      yield* recordedChange(db, { actor, action: 'images.delete', target: name })
      return true
    })
  }
}
