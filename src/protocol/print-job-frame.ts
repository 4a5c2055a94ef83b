// The `server.print_job` frame that carries a job to an agent (OpenPrinter v1 section 4.4).
import type { PrintDocument } from './document.ts'
import { MAX_FRAME_BYTES, PROTOCOL_VERSION } from './limits.ts'

const utf8 = new TextEncoder()

/**
 * The size in bytes of the largest frame that could carry this document: every identifier at its
 * longest (the wire job ID and idempotency key are the hub's per-attempt identity, an identifier of
 * at most 128 characters, never the application's key), with the metadata counted in case it
 * travels. A job is accepted only if this fits in one frame, so it can always be delivered.
 */
export function largestPrintJobFrameBytes(document: PrintDocument, metadata: Record<string, string> | null | undefined): number {
  const longestId = 'x'.repeat(128)
  const timestamp = '2000-01-01T00:00:00.000000000Z'
  const frame = {
    protocolVersion: PROTOCOL_VERSION,
    messageId: longestId,
    sentAt: timestamp,
    type: 'server.print_job',
    payload: { jobId: longestId, idempotencyKey: longestId, printerId: longestId, createdAt: timestamp, document, ...(metadata ? { metadata } : {}) },
  }
  return utf8.encode(JSON.stringify(frame)).length
}

export function fitsInOneFrame(document: PrintDocument, metadata: Record<string, string> | null | undefined): boolean {
  return largestPrintJobFrameBytes(document, metadata) <= MAX_FRAME_BYTES
}
