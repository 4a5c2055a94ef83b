// A receipt's picture for the dashboard, from the hub's receipt images (drawn off the event loop, cached).
import { conflict } from '../http/errors.ts'
import type { PrintDocument } from '../protocol/document.ts'
import type { PrinterRecord } from '../domain/records.ts'
import type { AdminContext } from './context.ts'

export async function receiptImage(
  context: AdminContext,
  jobId: string,
  document: PrintDocument,
  printer: PrinterRecord,
): Promise<Uint8Array<ArrayBuffer>> {
  try {
    return new Uint8Array(await context.receipts.png(jobId, document, printer))
  } catch (error) {
    throw conflict(`This receipt cannot be drawn for its printer: ${(error as Error).message}`)
  }
}
