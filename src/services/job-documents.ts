// What a submission does to its document, written once for both stores as units of work: a project's logos placed
// as images, and the sections its printer's model leaves out noted in the new job's timeline.
import type { PrintDocument, Section } from '../protocol/document.ts'
import { documentCostProblems } from '../protocol/document-cost.ts'
import type { Job } from '../protocol/job.ts'
import type { Issue } from '../protocol/rules.ts'
import { findProfile } from '../profiles/catalog.ts'
import { sectionsLeftOut } from '../render/capabilities.ts'
import type { Db } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'

/**
 * Notes in a new job's timeline each section its printer's model will leave out (a buzzer it lacks), before it
 * prints.
 */
export function* noteLeftOut(db: Db, job: Job, document: PrintDocument): Unit<void> {
  // Most documents have neither: no printer lookup on the submission's path for them.
  if (!document.sections.some((section) => section.type === 'drawer' || section.type === 'buzzer')) return
  const profile = findProfile((yield* db.printers.get(job.printerId))?.profile ?? '')
  if (!profile) return
  for (const { path, message } of sectionsLeftOut(document.sections, profile))
    yield* db.jobs.note(job.id, 'render.feature_ignored', `${path}: ${message}`)
}

/**
 * The document with each logo section replaced by the project's image of that name, as an image
 * section (the job keeps its own copy); the issues when a name has no image, or the images make
 * the document cost more than a document may.
 */
export function* placeLogos(
  db: Db,
  projectId: string,
  document: PrintDocument,
): Unit<{ document: PrintDocument } | { issues: Issue[] }> {
  if (!document.sections.some((section) => section.type === 'logo')) return { document }
  const issues: Issue[] = []
  const sections: Section[] = []
  for (const [index, section] of document.sections.entries()) {
    if (section.type !== 'logo') {
      sections.push(section)
      continue
    }
    const image = yield* db.images.data(projectId, section.name)
    if (!image)
      issues.push({
        path: `document.sections[${index}].name`,
        message:
          `names no image of this project ("${section.name}"); upload it with PUT ` +
          `/v1/projects/${projectId}/images/${section.name}`,
      })
    sections.push(image ? { type: 'image', ...image } : section)
  }
  if (issues.length > 0) return { issues }
  const placed = { ...document, sections }
  const costs = documentCostProblems(placed)
  return costs.length > 0
    ? { issues: costs.map((message) => ({ path: 'document', message: `with its logos in place ${message}` })) }
    : { document: placed }
}
