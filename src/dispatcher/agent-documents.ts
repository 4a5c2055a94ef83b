// The document a job is sent with, as its agent takes it: as stored for a printhub agent; for an
// agent that is not printhub, with what OpenPrinter lacks drawn as pictures for the printer's
// model, or the extensions no picture can carry (render/standard-document.ts). Made from what is
// stored, the same way each time, so an attempt sent again is byte-identical.
import { documentExtensions, type PrintDocument } from '../protocol/document.ts'
import type { Issue } from '../protocol/rules.ts'
import { findProfile } from '../profiles/catalog.ts'
import { standardDocument } from '../render/standard-document.ts'
import type { Store } from '../store/store.ts'

export function documentForAgent(store: Store, printhubAgent: boolean, printerId: string, jobId: string): { document: PrintDocument } | { refused: Issue[] } {
  const stored = store.jobs.document(jobId)!
  // Most documents use no extension: no printer lookup for them.
  if (printhubAgent || documentExtensions(stored).length === 0) return { document: stored }
  const profile = findProfile(store.printers.get(printerId)?.profile ?? '')
  return profile ? standardDocument(stored, profile) : { document: stored }
}
