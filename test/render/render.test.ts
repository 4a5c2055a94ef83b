import { describe, expect, test } from 'bun:test'
import type { PrintDocument, Section } from '../../src/protocol/document.ts'
import { render } from '../../src/render/render.ts'
import { bytes, ESC, GS, LF, PROLOGUE, renderError, target } from './bytes.ts'

function rendered(sections: Section[], width: PrintDocument['width'] = 58): number[] {
  return Array.from(render({ width, sections }, target(width)))
}

/** The bytes after the prologue. */
function body(sections: Section[], width: PrintDocument['width'] = 58): number[] {
  const all = rendered(sections, width)
  expect(all.slice(0, PROLOGUE.length)).toEqual(PROLOGUE)
  return all.slice(PROLOGUE.length)
}

describe('render targets', () => {
  test('Font A geometry of both paper widths, from the profile', () => {
    expect(target(58)).toMatchObject({ columns: 32, dotsPerLine: 384 })
    expect(target(80)).toMatchObject({ columns: 48, dotsPerLine: 576 })
  })

  test('a paper width the model does not take, or an unknown profile, fails the job plainly', () => {
    const error = renderError([{ type: 'text', value: 'hi' }], 80, 'generic-58mm')
    expect(error).toMatchObject({ code: 'render.width_unsupported', retryable: false })
    expect(error.message).toBe('the printer model generic-58mm takes 58 mm paper, not 80 mm')
    expect(renderError([{ type: 'text', value: 'hi' }], 80, 'no-such-printer')).toMatchObject({
      code: 'render.profile_unknown',
      message: 'this printhub has no printer profile "no-such-printer"',
    })
  })
})

describe('render', () => {
  test('starts with ESC @ and ESC t 19, once', () => {
    expect(rendered([{ type: 'cut' }, { type: 'cut' }])).toEqual(
      bytes(ESC, '@', ESC, 't', 19, ESC, 'd', 4, GS, 'V', 1, ESC, 'd', 4, GS, 'V', 1),
    )
  })

  test('text: wrapped lines, each ended by LF', () => {
    expect(body([{ type: 'text', value: 'Table 12\n\nThank you for visiting, see you soon' }])).toEqual(
      bytes('Table 12', LF, LF, 'Thank you for visiting, see you', LF, 'soon', LF),
    )
    expect(body([{ type: 'text', value: '' }])).toEqual(bytes(LF))
  })

  test('text: alignment and bold, sent when they change and reset at the end', () => {
    expect(
      body([
        { type: 'text', value: 'CAFE', align: 'center', bold: true },
        { type: 'text', value: 'Order 42', align: 'center', bold: true },
        { type: 'text', value: 'Total', align: 'right' },
        { type: 'text', value: 'Bye', align: 'left', bold: false },
      ]),
    ).toEqual(
      bytes(
        ESC,
        'a',
        1,
        ESC,
        'E',
        1,
        'CAFE',
        LF,
        'Order 42',
        LF,
        ESC,
        'a',
        2,
        ESC,
        'E',
        0,
        'Total',
        LF,
        ESC,
        'a',
        0,
        'Bye',
        LF,
      ),
    )
    expect(body([{ type: 'text', value: 'Hi', align: 'center', bold: true }])).toEqual(
      bytes(ESC, 'a', 1, ESC, 'E', 1, 'Hi', LF, ESC, 'a', 0, ESC, 'E', 0),
    )
  })

  test('text: accented letters and the euro sign in PC858', () => {
    expect(body([{ type: 'text', value: 'Crème brûlée 4,50 €' }])).toEqual(
      bytes('Cr', 0x8a, 'me br', 0x96, 'l', 0x82, 'e 4,50 ', 0xd5, LF),
    )
  })

  test('text: a character neither the code pages nor the font have fails the job and names it', () => {
    for (const [value, codePoint] of [
      ['\ue000', 'U+E000'],
      ['bell\u0007', 'U+0007'],
      ['\u001b@', 'U+001B'],
      ['\u007f', 'U+007F'],
    ]) {
      const error = renderError([
        { type: 'text', value: 'ok' },
        { type: 'text', value: value! },
      ])
      expect(error.code).toBe('render.unsupported_character')
      expect(error.retryable).toBe(false)
      expect(error.message).toBe(
        `sections[1]: ${codePoint} is neither in the printer's code pages nor in the font text is drawn with`,
      )
    }
  })

  test('row: one line, or two columns, always left aligned and not bold', () => {
    expect(body([{ type: 'row', left: 'Flat white', right: '3.50' }])).toEqual(
      bytes('Flat white', ' '.repeat(18), '3.50', LF),
    )
    expect(body([{ type: 'row', left: 'Crème brûlée', right: '4,50 €' }], 80)).toEqual(
      bytes('Cr', 0x8a, 'me br', 0x96, 'l', 0x82, 'e', ' '.repeat(30), '4,50 ', 0xd5, LF),
    )
    expect(
      body([
        { type: 'text', value: 'T', align: 'right', bold: true },
        { type: 'row', left: 'Grilled halloumi with roasted', right: '3.50' },
      ]),
    ).toEqual(
      bytes(
        ESC,
        'a',
        2,
        ESC,
        'E',
        1,
        'T',
        LF,
        ESC,
        'a',
        0,
        ESC,
        'E',
        0,
        'Grilled halloumi',
        ' '.repeat(12),
        '3.50',
        LF,
        'with roasted',
        LF,
      ),
    )
  })

  test('divider: a full line of dashes', () => {
    expect(body([{ type: 'divider' }])).toEqual(bytes('-'.repeat(32), LF))
    expect(body([{ type: 'divider' }], 80)).toEqual(bytes('-'.repeat(48), LF))
  })

  test('feed: ESC d n', () => {
    expect(body([{ type: 'feed', lines: 3 }])).toEqual(bytes(ESC, 'd', 3))
    expect(body([{ type: 'feed', lines: 255 }])).toEqual(bytes(ESC, 'd', 255))
  })

  test('cut: feed 4 lines past the cutter, then a partial cut', () => {
    expect(body([{ type: 'cut' }])).toEqual(bytes(ESC, 'd', 4, GS, 'V', 1))
  })

  test('qr: centred; model 2, module size, level M, store, print', () => {
    const value = 'https://example.test/r/123'
    const qr = (fn: number, ...parameters: (string | number)[]) => {
      const data = bytes(...parameters)
      return bytes(GS, '(', 'k', (data.length + 2) & 0xff, (data.length + 2) >> 8, 49, fn, data)
    }
    expect(body([{ type: 'qr', value }])).toEqual([
      ...bytes(ESC, 'a', 1),
      ...qr(65, 50, 0),
      ...qr(67, 8),
      ...qr(69, 49),
      ...qr(80, 48, value),
      ...qr(81, 48),
      ...bytes(ESC, 'a', 0),
    ])
    expect(body([{ type: 'qr', value }]).slice(3, 20)).toEqual(
      bytes(GS, '(', 'k', 4, 0, 49, 65, 50, 0, GS, '(', 'k', 3, 0, 49, 67, 8),
    )
  })

  test('qr: stores the UTF-8 bytes, with a two-byte length', () => {
    const value = 'é'.repeat(200)
    const stored = body([{ type: 'qr', value }]).slice(28, 28 + 8 + 400)
    expect(stored.slice(0, 8)).toEqual(bytes(GS, '(', 'k', 403 & 0xff, 403 >> 8, 49, 80, 48))
    expect(stored.slice(8)).toEqual(Array.from(new TextEncoder().encode(value)))
  })

  test('qr: the largest module size that fits, for short and long values', () => {
    const moduleSize = (value: string, width: PrintDocument['width']) => body([{ type: 'qr', value }], width)[19]
    // Version 1 (21 modules): capped at 8 dots.
    expect(moduleSize('x'.repeat(14), 58)).toBe(8)
    // Version 26 (121 modules): 384 / 121 and 576 / 121.
    expect(moduleSize('x'.repeat(1000), 58)).toBe(3)
    expect(moduleSize('x'.repeat(1000), 80)).toBe(4)
    // Version 40 (177 modules).
    expect(moduleSize('x'.repeat(2331), 58)).toBe(2)
    expect(moduleSize('x'.repeat(2331), 80)).toBe(3)
  })

  test('qr: more than version 40-M holds fails the job', () => {
    const error = renderError([{ type: 'qr', value: 'é'.repeat(1166) }])
    expect(error.code).toBe('render.qr_too_long')
    expect(error.retryable).toBe(false)
    expect(error.message).toBe('sections[0]: QR value is 2332 bytes in UTF-8; a QR code holds at most 2331')
  })

  const CENTRE = bytes(ESC, 'a', 1)
  const LEFT = bytes(ESC, 'a', 0)
  const barcodeHeader = (moduleWidth: number) => bytes(CENTRE, GS, 'H', 2, GS, 'h', 80, GS, 'w', moduleWidth)

  test('barcode: code128 in code set B', () => {
    expect(body([{ type: 'barcode', format: 'code128', value: 'ORDER-42' }])).toEqual(
      bytes(barcodeHeader(3), GS, 'k', 73, 10, '{B', 'ORDER-42', LEFT),
    )
    expect(body([{ type: 'barcode', format: 'code128', value: 'a{b' }])).toEqual(
      bytes(barcodeHeader(3), GS, 'k', 73, 6, '{Ba{{b', LEFT),
    )
  })

  test('barcode: code128 uses code set C for runs of four or more digits', () => {
    const data = (value: string) => body([{ type: 'barcode', format: 'code128', value }], 80).slice(16, -3)
    expect(data('No.123456')).toEqual(bytes('{BNo.{C', 12, 34, 56))
    expect(data('12345678')).toEqual(bytes('{C', 12, 34, 56, 78))
    expect(data('12345AB')).toEqual(bytes('{C', 12, 34, '{B5AB'))
    expect(data('A12345')).toEqual(bytes('{BA1{C', 23, 45))
    expect(data('A123B')).toEqual(bytes('{BA123B'))
    expect(data('0099-1234')).toEqual(bytes('{C', 0, 99, '{B-{C', 12, 34))
  })

  test('barcode: code39, ean13 and upca', () => {
    expect(body([{ type: 'barcode', format: 'code39', value: 'ABC-123' }])).toEqual(
      bytes(barcodeHeader(2), GS, 'k', 69, 7, 'ABC-123', LEFT),
    )
    expect(body([{ type: 'barcode', format: 'code39', value: 'ABC-123' }], 80)).toEqual(
      bytes(barcodeHeader(3), GS, 'k', 69, 7, 'ABC-123', LEFT),
    )
    expect(body([{ type: 'barcode', format: 'ean13', value: '4006381333931' }])).toEqual(
      bytes(barcodeHeader(3), GS, 'k', 67, 13, '4006381333931', LEFT),
    )
    expect(body([{ type: 'barcode', format: 'ean13', value: '400638133393' }])).toEqual(
      bytes(barcodeHeader(3), GS, 'k', 67, 12, '400638133393', LEFT),
    )
    expect(body([{ type: 'barcode', format: 'upca', value: '03600029145' }])).toEqual(
      bytes(barcodeHeader(3), GS, 'k', 65, 11, '03600029145', LEFT),
    )
    expect(body([{ type: 'barcode', format: 'upca', value: '036000291452' }])).toEqual(
      bytes(barcodeHeader(3), GS, 'k', 65, 12, '036000291452', LEFT),
    )
  })

  test('barcode: too wide for the paper at 2 dots a module', () => {
    const value = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
    const error = renderError([{ type: 'barcode', format: 'code128', value }])
    expect(error.code).toBe('render.barcode_too_wide')
    expect(error.retryable).toBe(false)
    // (26 symbols + start, check, stop) × 11 + 2 = 321 modules.
    expect(error.message).toBe('sections[0]: code128 barcode needs 642 dots; the paper has 384')
    expect(body([{ type: 'barcode', format: 'code128', value: 'ABCDEFGHIJKLMNOPQRSTU' }], 80).slice(0, 12)).toEqual(
      barcodeHeader(2),
    )
    expect(renderError([{ type: 'barcode', format: 'code39', value: 'ABCDEFGHIJKLMNOPQRSTU' }], 80).code).toBe(
      'render.barcode_too_wide',
    )
  })

  test('barcode: a value its symbology cannot hold fails the job', () => {
    const error = renderError([{ type: 'barcode', format: 'ean13', value: '4006381333932' }])
    expect(error.code).toBe('render.barcode_invalid')
    expect(error.message).toBe('sections[0]: barcode value has a wrong check digit for ean13 (expected 1)')
    expect(renderError([{ type: 'barcode', format: 'code39', value: 'abc' }]).code).toBe('render.barcode_invalid')
    expect(renderError([{ type: 'barcode', format: 'code128', value: 'tab\there' }]).message).toBe(
      'sections[0]: barcode value must be printable ASCII',
    )
  })

  test('a whole receipt, ending left aligned and not bold', () => {
    const sections: Section[] = [
      { type: 'text', value: 'Café Nord', align: 'center', bold: true },
      { type: 'divider' },
      { type: 'row', left: '2 × Flat white', right: '7,00 €' },
      { type: 'text', value: 'Merci !', align: 'center' },
      { type: 'feed', lines: 1 },
      { type: 'cut' },
    ]
    expect(rendered(sections)).toEqual(
      bytes(
        PROLOGUE,
        ESC,
        'a',
        1,
        ESC,
        'E',
        1,
        'Caf',
        0x82,
        ' Nord',
        LF,
        ESC,
        'a',
        0,
        ESC,
        'E',
        0,
        '-'.repeat(32),
        LF,
        '2 ',
        0x9e,
        ' Flat white',
        ' '.repeat(12),
        '7,00 ',
        0xd5,
        LF,
        ESC,
        'a',
        1,
        'Merci !',
        LF,
        ESC,
        'd',
        1,
        ESC,
        'd',
        4,
        GS,
        'V',
        1,
        ESC,
        'a',
        0,
      ),
    )
  })
})
