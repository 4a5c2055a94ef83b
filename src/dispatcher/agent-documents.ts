// The document a job is sent with, as its agent takes it: as stored (under the note of its move to
// another printer of its destination, if it moved) for a printhub agent; for an
// agent that is not printhub, with what OpenPrinter lacks drawn as pictures for the printer's
// model, or the extensions no picture can carry (render/standard-document.ts). Made from what is
// stored, the same way each time, so an attempt sent again is byte-identical. The drawing (and the
// PNG encoder it brings) is loaded the first time an agent that is not printhub is sent a job.
import { documentExtensions, type PrintDocument } from '../protocol/document.ts'
import type { Issue } from '../protocol/rules.ts'
import { findProfile } from '../profiles/catalog.ts'
import type { Attempt } from '../store/job-state-reads.ts'
import type { Store } from '../store/store.ts'
import type { Job } from '../protocol/job.ts'
import { wireJobId } from './wire-identity.ts'

let standard: typeof import('../render/standard-document.ts') | undefined
let loading: Promise<void> | undefined

/** Resolves once a job's document can be made for this kind of agent; undefined when it can be now. */
export function documentsReady(printhubAgent: boolean): Promise<void> | undefined {
  if (printhubAgent || standard) return undefined
  return (loading ??= import('../render/standard-document.ts').then((module) => void (standard = module)))
}

/** The document of `attempt`'s job for the agent of printer `printerId` (a printhub agent or another). */
export function documentForAgent(
  store: Store,
  printhubAgent: boolean,
  printerId: string,
  attempt: Pick<Attempt, 'job' | 'movedNote'>,
): { document: PrintDocument } | { refused: Issue[] } {
  // A printhub agent takes the document as it is serialised; the drawing for other agents reads the stored one.
  const stored = (printhubAgent ? store.jobs.documentToSend(attempt.job.id) : store.jobs.document(attempt.job.id))!
  return documentAsSent(stored, printhubAgent, () => store.printers.get(printerId)?.profile, attempt.movedNote)
}

/**
 * A job's document as stored, made into what its agent takes: under the note of its move, if it moved; for an agent
 * that is not printhub, with what OpenPrinter lacks drawn for the model `profile` names (read only when needed).
 */
export function documentAsSent(
  stored: PrintDocument,
  printhubAgent: boolean,
  profile: () => string | undefined,
  movedNote: string | null,
): { document: PrintDocument } | { refused: Issue[] } {
  const document = withMovedNote(stored, movedNote)
  // Most documents use no extension: no printer lookup for them.
  if (printhubAgent || documentExtensions(document).length === 0) return { document }
  if (!standard) throw new Error('documentsReady() comes first for an agent that is not printhub')
  const found = findProfile(profile() ?? '')
  return found ? standard.standardDocument(document, found) : { document }
}

/** A job moved to another printer of its destination says so at the top of its ticket, in OpenPrinter's sections. */
function withMovedNote(document: PrintDocument, note: string | null): PrintDocument {
  if (note === null) return document
  return {
    ...document,
    sections: [{ type: 'text', value: note, align: 'center', bold: true }, { type: 'divider' }, ...document.sections],
  }
}

/** What a `server.print_job` of an attempt carries: made from what is stored, the same each time. */
export function printJobPayload(
  agentPrinterId: string,
  job: Pick<Job, 'id' | 'createdAt'>,
  attempt: number,
  document: PrintDocument,
) {
  const wireId = wireJobId(job.id, attempt)
  return { jobId: wireId, idempotencyKey: wireId, printerId: agentPrinterId, createdAt: job.createdAt, document }
}
