// A project's stored images (`PUT /v1/projects/:projectId/images/:name`): a logo uploaded once,
// which documents name in a `logo` section instead of carrying it in every job (a printhub
// extension). The image is checked as an image section's is.
import { IMAGE_MEDIA_TYPES, printableImageRule } from './image.ts'
import { MAX_IMAGE_BASE64_LENGTH } from './limits.ts'
import { array, integer, object, oneOf, type Rule, string } from './rules.ts'
import { timestamp } from './values.ts'

/** Images one project may keep. */
export const MAX_PROJECT_IMAGES = 32

/** An image's name: what a logo section says, and the last part of its address. */
export const imageName = string({
  min: 1,
  max: 64,
  pattern: /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
  patternHint: 'letters, digits, ".", "_" and "-", starting with a letter or digit',
})

/** The body of the PUT: the image as an image section carries it, checked as one is. */
export const putImageRule = printableImageRule

export interface ProjectImage {
  name: string
  mediaType: (typeof IMAGE_MEDIA_TYPES)[number]
  width: number
  height: number
  bytes: number
  updatedAt: string
}

const projectImageRule: Rule<ProjectImage> = object({
  name: imageName,
  mediaType: oneOf(IMAGE_MEDIA_TYPES),
  width: integer({ min: 1, max: 2_048 }),
  height: integer({ min: 1, max: 2_048 }),
  bytes: integer({ min: 1, max: MAX_IMAGE_BASE64_LENGTH }),
  updatedAt: timestamp,
})
export const projectImageResponseRule = object({ image: projectImageRule })
export const projectImagesResponseRule = object({ images: array(projectImageRule, { max: MAX_PROJECT_IMAGES }) })
