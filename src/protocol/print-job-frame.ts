// The `server.print_job` frame that carries a job to an agent (OpenPrinter v1 section 4.4).
import type { PrintDocument } from './document.ts'
import { MAX_FRAME_BYTES, PROTOCOL_VERSION } from './limits.ts'

const utf8 = new TextEncoder()

/**
 * Whether the document (serialised as `documentJson`, made here when not given) fits in the largest
 * frame that could carry it: every identifier at its longest (the wire job ID and idempotency key
 * are the hub's per-attempt identity, an identifier of at most 128 characters, never the
 * application's key), with the metadata counted in case it travels. A job is accepted only if it
 * fits, so it can always be delivered.
 */
export function fitsInOneFrame(
  document: PrintDocument,
  metadata: Record<string, string> | null | undefined,
  documentJson = JSON.stringify(document),
): boolean {
  const around = frameAroundBytes(metadata)
  // A UTF-16 code unit is at most 3 bytes in UTF-8: most documents fit without being encoded.
  return (
    around + documentJson.length * 3 <= MAX_FRAME_BYTES || around + utf8.encode(documentJson).length <= MAX_FRAME_BYTES
  )
}

let aroundWithoutMetadata: number | undefined

/** The bytes of the largest frame around its document: JSON.stringify writes the document's own text in its place. */
function frameAroundBytes(metadata: Record<string, string> | null | undefined): number {
  if (!metadata) return (aroundWithoutMetadata ??= frameAround(undefined))
  return frameAround(metadata)
}

function frameAround(metadata: Record<string, string> | undefined): number {
  const longestId = 'x'.repeat(128)
  const timestamp = '2000-01-01T00:00:00.000000000Z'
  const frame = {
    protocolVersion: PROTOCOL_VERSION,
    messageId: longestId,
    sentAt: timestamp,
    type: 'server.print_job',
    payload: {
      jobId: longestId,
      idempotencyKey: longestId,
      printerId: longestId,
      createdAt: timestamp,
      document: 0,
      ...(metadata ? { metadata } : {}),
    },
  }
  // Less the placeholder's one byte.
  return utf8.encode(JSON.stringify(frame)).length - 1
}
