// Whether a document fits in one delivery frame (src/protocol/print-job-frame.ts), against the
// largest frame built whole and counted in UTF-8: to the byte, with metadata, and with characters
// of two, three and four bytes (where a count of characters would be wrong).
import { describe, expect, test } from 'bun:test'
import type { PrintDocument } from '../../src/protocol/document.ts'
import { MAX_FRAME_BYTES, PROTOCOL_VERSION } from '../../src/protocol/limits.ts'
import { fitsInOneFrame } from '../../src/protocol/print-job-frame.ts'

/** The largest frame that could carry the document, built whole: every identifier at its longest. */
function largestFrameBytes(document: PrintDocument, metadata: Record<string, string> | null): number {
  const id = 'x'.repeat(128)
  const at = '2000-01-01T00:00:00.000000000Z'
  const payload = {
    jobId: id,
    idempotencyKey: id,
    printerId: id,
    createdAt: at,
    document,
    ...(metadata ? { metadata } : {}),
  }
  return new TextEncoder().encode(
    JSON.stringify({ protocolVersion: PROTOCOL_VERSION, messageId: id, sentAt: at, type: 'server.print_job', payload }),
  ).length
}

/**
 * A document of one text section whose largest frame is exactly `bytes` long, filled with `fill` (one character of
 * `fillBytes` bytes) after ASCII.
 */
function documentOf(bytes: number, metadata: Record<string, string> | null, fill = 'a', fillBytes = 1): PrintDocument {
  const empty = largestFrameBytes({ width: 80, sections: [{ type: 'text', value: '' }] }, metadata)
  const room = bytes - empty
  const wide = Math.floor(room / fillBytes)
  const value = fill.repeat(wide) + 'a'.repeat(room - wide * fillBytes)
  const document: PrintDocument = { width: 80, sections: [{ type: 'text', value }] }
  expect(largestFrameBytes(document, metadata)).toBe(bytes)
  return document
}

describe('a document fits in one delivery frame', () => {
  for (const [name, fill, fillBytes] of [
    ['ASCII', 'a', 1],
    ['two-byte characters', 'é', 2],
    ['three-byte characters', '€', 3],
    ['four-byte characters', '😀', 4],
  ] as const) {
    for (const metadata of [null, { order: 'A-1042', table: '7' }]) {
      test(`${name}, ${metadata ? 'with' : 'without'} metadata: at the limit it fits, a byte over it does not`, () => {
        const atLimit = documentOf(MAX_FRAME_BYTES, metadata, fill, fillBytes)
        const over = documentOf(MAX_FRAME_BYTES + 1, metadata, fill, fillBytes)
        expect(fitsInOneFrame(atLimit, metadata)).toBe(true)
        expect(fitsInOneFrame(over, metadata)).toBe(false)
        // Given the text it is stored as, the answer is the same.
        expect(fitsInOneFrame(atLimit, metadata, JSON.stringify(atLimit))).toBe(true)
        expect(fitsInOneFrame(over, metadata, JSON.stringify(over))).toBe(false)
      })
    }
  }

  test('a small receipt fits', () => {
    const receipt: PrintDocument = {
      width: 80,
      sections: [{ type: 'text', value: 'Café crème 3,20 €' }, { type: 'cut' }],
    }
    expect(fitsInOneFrame(receipt, null)).toBe(true)
  })
})
