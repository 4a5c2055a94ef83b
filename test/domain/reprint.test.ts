// A reprint's document (domain/reprint.ts): the original's under one banner with its time.
import { describe, expect, test } from 'bun:test'
import { REPRINT_HEADLINE, reprintDocument, venueTime } from '../../src/domain/reprint.ts'
import type { PrintDocument } from '../../src/protocol/document.ts'

describe('a reprint', () => {
  test('the time is the local date and minute; the banner goes on top of the document, in OpenPrinter sections', () => {
    const at = new Date(2026, 10, 26, 21, 4, 59).getTime()
    expect(venueTime(at)).toBe('2026-11-26 21:04')
    const original: PrintDocument = { width: 80, sections: [{ type: 'text', value: 'Table 12' }, { type: 'cut' }] }
    expect(reprintDocument(original, at)).toEqual({
      width: 80,
      sections: [
        { type: 'text', value: REPRINT_HEADLINE, align: 'center', bold: true },
        { type: 'text', value: 'First printed for 2026-11-26 21:04', align: 'center' },
        { type: 'divider' },
        ...original.sections,
      ],
    })
  })

  test("a reprint of a reprint keeps the one banner, with the first print's time", () => {
    const first = reprintDocument(
      { width: 58, sections: [{ type: 'text', value: 'x' }] },
      new Date(2026, 0, 1, 9, 0).getTime(),
    )
    expect(reprintDocument(first, new Date(2026, 5, 1, 12, 0).getTime())).toEqual(first)
  })
})
