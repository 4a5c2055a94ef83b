import { describe, expect, test } from 'bun:test'
import { documentRule } from '../../src/protocol/document.ts'
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
    expect(issuesOf(Array(257).fill({ type: 'cut' }))).toEqual([{ path: 'sections', message: 'must have 1 to 256 items (got 257)' }])
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
    rejects({ type: 'image', mediaType: 'image/png', data: `data:image/png;base64,${PNG_1X1}` }, '.data', /standard padded base64/)
    rejects({ type: 'image', mediaType: 'image/png', data: PNG_1X1.replace(/=+$/, '') }, '.data', /standard padded base64/)
    rejects({ type: 'image', mediaType: 'image/png', data: PNG_1X1.replace('i', '-') }, '.data', /standard padded base64/)
    rejects({ type: 'image', mediaType: 'image/jpeg', data: PNG_1X1 }, '.data', /holds an image\/png image, but mediaType says image\/jpeg/)
    rejects({ type: 'image', mediaType: 'image/png', data: btoa('hello world!') }, '.data', /does not hold a PNG or JPEG/)
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
    rejects({ type: 'image', mediaType: 'image/png', data: pngOfSize(1_048_600) }, '.data', /must be 4 to 1398104 characters long/)
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
