import { describe, expect, test } from 'bun:test'
import {
  documentExtensions,
  documentRule,
  printhubWireDocumentRule,
  wireDocumentRule,
} from '../../src/protocol/document.ts'
import { validate } from '../../src/protocol/rules.ts'
import { JPEG_1X1, jpegWithSegment, PNG_1X1, pngOfSize } from '../support/images.ts'

function issuesOf(sections: unknown[], width: unknown = 80) {
  const result = validate(documentRule, { width, sections })
  return result.ok ? [] : result.issues
}

function accepts(section: unknown) {
  expect(issuesOf([section])).toEqual([])
}

function rejects(section: unknown, path: string, message: RegExp) {
  const issues = issuesOf([section])
  expect(issues.length).toBeGreaterThan(0)
  expect(issues).toContainEqual({ path: `sections[0]${path}`, message: expect.stringMatching(message) })
}

describe('print document', () => {
  test('accepts every section kind', () => {
    const sections = [
      { type: 'text', value: 'Grüße, Ελληνικά, Кириллица €' },
      { type: 'text', value: '', align: 'center', bold: true },
      { type: 'row', left: 'Flat white', right: '3.50' },
      { type: 'divider' },
      { type: 'feed', lines: 255 },
      { type: 'qr', value: 'https://example.test/r/123' },
      { type: 'barcode', format: 'code128', value: 'ORDER-42' },
      { type: 'barcode', format: 'code39', value: 'ABC-123 $/+%.' },
      { type: 'barcode', format: 'ean13', value: '4006381333931' },
      { type: 'barcode', format: 'ean13', value: '400638133393' },
      { type: 'barcode', format: 'upca', value: '036000291452' },
      { type: 'barcode', format: 'upca', value: '03600029145' },
      { type: 'image', mediaType: 'image/png', data: PNG_1X1 },
      { type: 'image', mediaType: 'image/jpeg', data: JPEG_1X1 },
      { type: 'cut' },
    ]
    expect(issuesOf(sections)).toEqual([])
    expect(issuesOf(sections, 58)).toEqual([])
  })

  test('width must be 58 or 80 and sections 1 to 256', () => {
    expect(issuesOf([{ type: 'cut' }], 72)).toEqual([{ path: 'width', message: 'must be one of 58, 80' }])
    expect(issuesOf([{ type: 'cut' }], '80')).toEqual([{ path: 'width', message: 'must be one of 58, 80' }])
    expect(issuesOf([])).toEqual([{ path: 'sections', message: 'must have 1 to 256 items (got 0)' }])
    expect(issuesOf(Array(257).fill({ type: 'cut' }))).toEqual([
      { path: 'sections', message: 'must have 1 to 256 items (got 257)' },
    ])
    expect(issuesOf(Array(256).fill({ type: 'cut' }))).toEqual([])
  })

  test('objects are closed and discriminated by type', () => {
    rejects({ type: 'cut', lines: 3 }, '.lines', /not an allowed field/)
    rejects({ type: 'divider', char: '=' }, '.char', /not an allowed field/)
    rejects({ type: 'poem', value: 'x' }, '.type', /must be one of "text", "row"/)
    rejects({ value: 'x' }, '.type', /must be one of/)
    rejects('text', '', /must be an object, not a string/)
    const result = validate(documentRule, { width: 80, sections: [{ type: 'cut' }], paper: 'a4' })
    expect(result.ok ? [] : result.issues).toEqual([{ path: 'paper', message: 'is not an allowed field' }])
  })

  test('text', () => {
    accepts({ type: 'text', value: 'x'.repeat(16_384) })
    rejects({ type: 'text', value: 'x'.repeat(16_385) }, '.value', /at most 16384 characters/)
    rejects({ type: 'text' }, '.value', /is required/)
    rejects({ type: 'text', value: 5 }, '.value', /must be a string, not a number/)
    rejects({ type: 'text', value: 'x', align: 'justify' }, '.align', /one of "left", "center", "right"/)
    rejects({ type: 'text', value: 'x', bold: 'yes' }, '.bold', /true or false/)
  })

  test(
    'text and rows refuse the control characters a printer cannot print, ' +
      'naming the code point; line breaks, tabs and accents pass',
    () => {
      rejects(
        { type: 'text', value: 'Table 12\u001b@' },
        '.value',
        /^has the control character U\+001B at index 8, which cannot be printed/,
      )
      rejects({ type: 'text', value: 'bell\u0007' }, '.value', /U\+0007 at index 4/)
      rejects({ type: 'text', value: '\u0000' }, '.value', /U\+0000 at index 0/)
      rejects({ type: 'text', value: 'DEL\u007f' }, '.value', /U\+007F/)
      rejects({ type: 'text', value: 'next line\u0085' }, '.value', /U\+0085/)
      rejects({ type: 'text', value: '\u009f' }, '.value', /U\+009F/)
      rejects({ type: 'row', left: 'Espresso\u001b', right: '2.50' }, '.left', /U\+001B at index 8/)
      rejects({ type: 'row', left: 'Espresso', right: '2.50\u001d' }, '.right', /U\+001D at index 4/)
      // Only the first one is named, once for the field.
      expect(issuesOf([{ type: 'text', value: '\u0001\u0002' }])).toEqual([
        { path: 'sections[0].value', message: expect.stringMatching(/U\+0001 at index 0/) },
      ])
      accepts({ type: 'text', value: 'Crème brûlée\nZürich\r\n\tÇa va, ñandú? 寿司 😀 \u00a0\u00ad\u00a0' })
      accepts({ type: 'text', value: 'a\u000bb\u000cc' })
      accepts({ type: 'row', left: 'Flat white\nextra shot', right: '3,50 €' })
      // A QR code's value is data, not printed text: any character it can carry.
      accepts({ type: 'qr', value: 'GS1\u001d0104012345678901\t\u0004' })
      // Between two printhub ends and in OpenPrinter frames, shape only: the renderer says why it cannot print.
      expect(validate(wireDocumentRule, { width: 80, sections: [{ type: 'text', value: '\u001b' }] }).ok).toBe(true)
      expect(
        validate(printhubWireDocumentRule, { width: 80, sections: [{ type: 'row', left: '\u001b', right: '' }] }).ok,
      ).toBe(true)
    },
  )

  test('row, feed and qr bounds', () => {
    accepts({ type: 'row', left: '', right: '' })
    rejects({ type: 'row', left: 'x'.repeat(4097), right: '' }, '.left', /at most 4096/)
    rejects({ type: 'row', left: 'x' }, '.right', /is required/)
    rejects({ type: 'feed', lines: 0 }, '.lines', /between 1 and 255/)
    rejects({ type: 'feed', lines: 256 }, '.lines', /between 1 and 255/)
    rejects({ type: 'feed', lines: 2.5 }, '.lines', /integer/)
    rejects({ type: 'feed', lines: '3' }, '.lines', /integer, not a string/)
    rejects({ type: 'qr', value: '' }, '.value', /1 to 4096/)
    accepts({ type: 'qr', value: 'x'.repeat(2331) })
    // Longer than any QR symbol holds: refused here rather than printed as a blank.
    rejects({ type: 'qr', value: 'x'.repeat(2332) }, '.value', /at most 2331/)
    rejects({ type: 'qr', value: '€'.repeat(778) }, '.value', /2334 bytes/)
  })

  test('barcodes must be valid for their symbology, check digits included', () => {
    rejects({ type: 'barcode', format: 'qr', value: '1' }, '.format', /one of "code128"/)
    rejects({ type: 'barcode', format: 'code128', value: 'café' }, '.value', /printable ASCII/)
    rejects({ type: 'barcode', format: 'code128', value: 'x'.repeat(254) }, '.value', /at most 253/)
    rejects({ type: 'barcode', format: 'code39', value: 'abc' }, '.value', /A-Z, 0-9/)
    rejects({ type: 'barcode', format: 'ean13', value: '4006381333932' }, '.value', /wrong check digit.*expected 1/)
    rejects({ type: 'barcode', format: 'ean13', value: '40063813339' }, '.value', /12 digits, or 13/)
    rejects({ type: 'barcode', format: 'ean13', value: '40063813339A' }, '.value', /12 digits, or 13/)
    rejects({ type: 'barcode', format: 'upca', value: '036000291453' }, '.value', /wrong check digit.*expected 2/)
    rejects({ type: 'barcode', format: 'upca', value: '0360002914' }, '.value', /11 digits, or 12/)
  })

  test('images must be standard base64 of an image of the stated type', () => {
    rejects({ type: 'image', mediaType: 'image/gif', data: PNG_1X1 }, '.mediaType', /image\/png/)
    rejects(
      { type: 'image', mediaType: 'image/png', data: `data:image/png;base64,${PNG_1X1}` },
      '.data',
      /standard padded base64/,
    )
    rejects(
      { type: 'image', mediaType: 'image/png', data: PNG_1X1.replace(/=+$/, '') },
      '.data',
      /standard padded base64/,
    )
    rejects(
      { type: 'image', mediaType: 'image/png', data: PNG_1X1.replace('i', '-') },
      '.data',
      /standard padded base64/,
    )
    rejects(
      { type: 'image', mediaType: 'image/jpeg', data: PNG_1X1 },
      '.data',
      /holds an image\/png image, but mediaType says image\/jpeg/,
    )
    rejects(
      { type: 'image', mediaType: 'image/png', data: btoa('hello world!') },
      '.data',
      /does not hold a PNG or JPEG/,
    )
    rejects({ type: 'image', mediaType: 'image/png', data: PNG_1X1.slice(0, 40) }, '.data', /PNG/)
    rejects({ type: 'image', mediaType: 'image/jpeg', data: JPEG_1X1.slice(0, 24) }, '.data', /JPEG/)
    rejects({ type: 'image', mediaType: 'image/png', data: 'iVBORw==' }, '.data', /does not hold a PNG or JPEG/)
    accepts({ type: 'image', mediaType: 'image/png', data: pngOfSize(1_000_000) })
    accepts({ type: 'image', mediaType: 'image/jpeg', data: jpegWithSegment(60_000) })
    const truncated = Buffer.from(jpegWithSegment(60_000), 'base64').subarray(0, 30_000).toString('base64')
    rejects({ type: 'image', mediaType: 'image/jpeg', data: truncated }, '.data', /no frame header/)
    const unterminated = Buffer.from(JPEG_1X1, 'base64').subarray(0, -2).toString('base64')
    rejects({ type: 'image', mediaType: 'image/jpeg', data: unterminated }, '.data', /cut short/)
    const zeroSize = Buffer.from(JPEG_1X1, 'base64')
    zeroSize.writeUInt16BE(0, 27)
    rejects({ type: 'image', mediaType: 'image/jpeg', data: zeroSize.toString('base64') }, '.data', /zero size/)
    rejects(
      { type: 'image', mediaType: 'image/png', data: pngOfSize(1_048_600) },
      '.data',
      /must be 4 to 1398104 characters long/,
    )
  })

  test('reports every problem with its path, bounded', () => {
    const result = validate(documentRule, { width: 80, sections: Array(100).fill({ type: 'feed', lines: 0 }) })
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.issues).toHaveLength(32)
      expect(result.issues[31]).toEqual({ path: 'sections[31].lines', message: 'must be between 1 and 255 (got 0)' })
    }
  })
})

describe("printhub's extensions of the document", () => {
  test('text and row styles, the drawer and the buzzer are accepted within their ranges', () => {
    accepts({
      type: 'text',
      value: 'Table 12',
      size: { width: 8, height: 8 },
      underline: 'double',
      invert: true,
      font: 'b',
      bold: true,
      align: 'center',
    })
    accepts({ type: 'text', value: 'x', size: { width: 1, height: 2 }, underline: 'single', font: 'a' })
    accepts({
      type: 'row',
      left: 'Total',
      right: '12.50',
      bold: true,
      size: { width: 2, height: 1 },
      underline: 'single',
      invert: false,
      font: 'b',
    })
    accepts({ type: 'drawer', pin: 2 })
    accepts({ type: 'drawer', pin: 5, onMs: 2, offMs: 510 })
    accepts({ type: 'buzzer', times: 1 })
    accepts({ type: 'buzzer', times: 9, durationMs: 2_000 })
  })

  test('every bad value is named by its path', () => {
    rejects({ type: 'text', value: 'x', size: { width: 0, height: 1 } }, '.size.width', /between 1 and 8/)
    rejects({ type: 'text', value: 'x', size: { width: 1, height: 9 } }, '.size.height', /between 1 and 8/)
    rejects({ type: 'text', value: 'x', size: { width: 2 } }, '.size.height', /required/)
    rejects(
      { type: 'text', value: 'x', size: { width: 2, height: 2, depth: 2 } },
      '.size.depth',
      /not an allowed field/,
    )
    rejects({ type: 'text', value: 'x', size: 2 }, '.size', /must be an object/)
    rejects({ type: 'text', value: 'x', underline: 'triple' }, '.underline', /one of/)
    rejects({ type: 'text', value: 'x', underline: true }, '.underline', /one of/)
    rejects({ type: 'text', value: 'x', invert: 'yes' }, '.invert', /true or false/)
    rejects({ type: 'row', left: 'a', right: 'b', font: 'c' }, '.font', /one of/)
    rejects({ type: 'row', left: 'a', right: 'b', align: 'center' }, '.align', /not an allowed field/)
    rejects({ type: 'drawer', pin: 3 }, '.pin', /one of/)
    rejects({ type: 'drawer' }, '.pin', /required/)
    rejects({ type: 'drawer', pin: 2, onMs: 1 }, '.onMs', /between 2 and 510/)
    rejects({ type: 'drawer', pin: 2, offMs: 511 }, '.offMs', /between 2 and 510/)
    rejects({ type: 'drawer', pin: 2, onMs: 10.5 }, '.onMs', /integer/)
    rejects({ type: 'buzzer', times: 0 }, '.times', /between 1 and 9/)
    rejects({ type: 'buzzer', times: 10 }, '.times', /between 1 and 9/)
    rejects({ type: 'buzzer', times: 1, durationMs: 99 }, '.durationMs', /between 100 and 2/)
    rejects({ type: 'buzzer', times: 1, volume: 3 }, '.volume', /not an allowed field/)
  })

  test('magnified text costs its area in the document cost limit', () => {
    const big = { type: 'text', value: 'x'.repeat(4_096), size: { width: 8, height: 8 } }
    expect(issuesOf([big, big]).map((issue) => issue.message)).toEqual([
      expect.stringMatching(/^has 524,288 characters of text in all/),
    ])
    expect(
      issuesOf([
        { type: 'text', value: big.value },
        { type: 'text', value: big.value },
      ]),
    ).toEqual([])
  })

  test('an OpenPrinter frame cannot carry them: the wire rule names each; between printhub ends they pass', () => {
    const document = {
      width: 80,
      sections: [
        { type: 'text', value: 'x', size: { width: 2, height: 2 }, font: 'b' },
        { type: 'row', left: 'a', right: 'b', bold: true },
        { type: 'drawer', pin: 2 },
        { type: 'text', value: 'plain', bold: true },
      ],
    }
    expect(documentExtensions(document)).toEqual([
      { path: 'sections[0].size', message: 'is a printhub extension (text size) that OpenPrinter v1 does not have' },
      { path: 'sections[0].font', message: 'is a printhub extension (text font) that OpenPrinter v1 does not have' },
      { path: 'sections[1].bold', message: 'is a printhub extension (row bold) that OpenPrinter v1 does not have' },
      {
        path: 'sections[2].type',
        message: 'is a printhub extension (the drawer section) that OpenPrinter v1 does not have',
      },
    ])
    const wire = validate(wireDocumentRule, document)
    expect(wire.ok ? [] : wire.issues.map((issue) => issue.path)).toEqual([
      'sections[0].size',
      'sections[0].font',
      'sections[1].bold',
      'sections[2].type',
    ])
    expect(validate(printhubWireDocumentRule, document).ok).toBe(true)
    expect(
      validate(wireDocumentRule, {
        width: 80,
        sections: [{ type: 'text', value: 'plain', bold: true, align: 'right' }],
      }).ok,
    ).toBe(true)
  })
})
