// Hand-written ESC/POS byte sequences (not the renderer's output) and what the preview reads in them.
import { describe, expect, test } from 'bun:test'
import { decodeReceipt } from '../../src/preview/preview.ts'
import { bytes, ESC, ESCPOS_80, escpos, GS, LF, lineTexts } from './support.ts'

describe('ESC/POS text', () => {
  test('bytes from 0x80 up read in the code table ESC t selects', () => {
    const receipt = escpos(
      ESC,
      '@',
      ESC,
      't',
      19,
      'Caf',
      0x82,
      ' 5',
      0xd5,
      LF, // PC858: é, €
      ESC,
      't',
      18,
      0x88,
      LF, // PC852: ł
      ESC,
      't',
      17,
      0x86,
      LF, // PC866: Ж
      ESC,
      't',
      14,
      0x97,
      LF, // PC737: Ω
      ESC,
      't',
      13,
      0x8d,
      LF, // PC857: dotless ı
      ESC,
      't',
      16,
      0x80,
      LF, // WPC1252: €
      ESC,
      't',
      2,
      0xd5,
      LF, // PC850: ı where PC858 has €
    )
    expect(lineTexts(receipt.blocks)).toEqual(['Café 5€', 'ł', 'Ж', 'Ω', 'ı', '€', 'ı'])
    expect(receipt.warnings).toEqual([])
  })

  test('ESC @ puts the code table back to PC437', () => {
    const receipt = escpos(ESC, 't', 19, 0xd5, LF, ESC, '@', 0xd5, LF)
    expect(lineTexts(receipt.blocks)).toEqual(['€', '╒'])
  })

  test(
    'a byte the table leaves unassigned, or a table the preview does not ' + 'know, reads as U+FFFD with a warning',
    () => {
      const receipt = escpos(ESC, 't', 13, 0xd5, LF, ESC, 't', 99, 'a', 0x80, LF)
      expect(lineTexts(receipt.blocks)).toEqual(['\uFFFD', 'a\uFFFD'])
      expect(receipt.warnings).toHaveLength(3)
      expect(receipt.warnings[0]).toBe('byte 3: byte 0xD5 has no character in cp857')
      expect(receipt.warnings[1]).toContain('code table 99')
    },
  )

  test('justification and emphasis are kept per line and per run', () => {
    const receipt = escpos(
      ESC,
      'a',
      1,
      ESC,
      'E',
      1,
      'Total',
      ESC,
      'E',
      0,
      ' 5',
      LF,
      ESC,
      'a',
      '2',
      'R',
      LF,
      ESC,
      'a',
      48,
      ESC,
      '!',
      8,
      'B',
      ESC,
      '!',
      0,
      LF,
    )
    expect(receipt.blocks).toEqual([
      {
        kind: 'text',
        alignment: 'center',
        runs: [
          { text: 'Total', bold: true },
          { text: ' 5', bold: false },
        ],
      },
      { kind: 'text', alignment: 'right', runs: [{ text: 'R', bold: false }] },
      { kind: 'text', alignment: 'left', runs: [{ text: 'B', bold: true }] },
    ])
    expect(receipt.warnings).toEqual([])
  })

  test('ESC @ resets justification and emphasis and discards a line not yet printed', () => {
    const receipt = escpos(ESC, 'a', 2, ESC, 'E', 1, 'lost', ESC, '@', 'kept', LF)
    expect(receipt.blocks).toEqual([{ kind: 'text', alignment: 'left', runs: [{ text: 'kept', bold: false }] }])
    expect(receipt.warnings).toEqual(['byte 10: initialisation discards 4 characters not yet printed'])
  })

  test('a line longer than the paper wraps, as the printer wraps it', () => {
    const receipt = escpos('x'.repeat(50), LF)
    expect(lineTexts(receipt.blocks)).toEqual(['x'.repeat(48), 'xx'])
    expect(receipt.warnings).toEqual(['byte 48: the line is longer than 48 characters; the printer wraps it'])
  })

  test('text not followed by a line feed is not printed', () => {
    const receipt = escpos('printed', LF, 'waiting')
    expect(lineTexts(receipt.blocks)).toEqual(['printed'])
    expect(receipt.warnings).toEqual([
      'byte 15: 7 characters at the end are not followed by a line feed, so they are not printed',
    ])
  })

  test('commands the preview ignores are read for their full length', () => {
    const receipt = escpos(
      ESC,
      'p',
      0,
      25,
      250, // drawer pulse
      0x10,
      0x04,
      1, // DLE EOT 1
      0x10,
      0x14,
      1,
      0,
      5, // DLE DC4 1 0 5
      ESC,
      '2',
      ESC,
      '3',
      40, // line spacing
      ESC,
      '!',
      0,
      GS,
      '!',
      0, // print modes, character size: the defaults
      ESC,
      'D',
      8,
      16,
      0, // tab positions
      GS,
      'a',
      0,
      ESC,
      'c',
      '5',
      0,
      'A',
      LF,
    )
    expect(lineTexts(receipt.blocks)).toEqual(['A'])
    expect(receipt.warnings).toEqual([])
  })

  test('what the preview does not draw is named in a warning', () => {
    const receipt = escpos(0x07, ESC, 'z', ESC, 'G', 1, ESC, 'V', 1, ESC, '{', 1, 'A', LF)
    expect(lineTexts(receipt.blocks)).toEqual(['A'])
    expect(receipt.warnings).toEqual([
      'byte 0: control byte 0x07 is not read by the preview; ignored',
      'byte 1: unknown command ESC 0x7A; skipped',
      'byte 3: ESC G (double-strike) is not drawn by the preview',
      'byte 6: ESC V (90° rotation) is not drawn by the preview',
      'byte 9: ESC { (upside-down) is not drawn by the preview',
    ])
  })

  test(
    'character size, underline, white on black and font B are read into the ' +
      'runs; ESC ! sets them at once; ESC @ resets them',
    () => {
      const receipt = escpos(
        GS,
        '!',
        0x21,
        'Big',
        ESC,
        '-',
        2,
        GS,
        'B',
        1,
        ESC,
        'M',
        1,
        'x',
        LF,
        ESC,
        '!',
        0xb9,
        'y',
        LF,
        ESC,
        '@',
        'z',
        LF,
        GS,
        '!',
        0x88,
        'w',
        LF,
      )
      expect(receipt.blocks).toEqual([
        {
          kind: 'text',
          alignment: 'left',
          runs: [
            { text: 'Big', bold: false, size: { width: 3, height: 2 } },
            { text: 'x', bold: false, size: { width: 3, height: 2 }, underline: 2, invert: true, font: 'b' },
          ],
        },
        {
          kind: 'text',
          alignment: 'left',
          runs: [{ text: 'y', bold: true, size: { width: 2, height: 2 }, underline: 1, invert: true, font: 'b' }],
        },
        { kind: 'text', alignment: 'left', runs: [{ text: 'z', bold: false }] },
        { kind: 'text', alignment: 'left', runs: [{ text: 'w', bold: false }] },
      ])
      expect(receipt.warnings).toEqual(['byte 26: GS ! 0x88 is not a character size; ignored'])
    },
  )

  test('a magnified line wraps at the paper: 48 columns of font A hold 24 double-wide characters', () => {
    const receipt = escpos(GS, '!', 0x10, 'x'.repeat(25), LF)
    expect(lineTexts(receipt.blocks)).toEqual(['x'.repeat(24), 'x'])
    expect(receipt.warnings).toEqual(['byte 27: the line is longer than 24 characters; the printer wraps it'])
  })

  test('the drawer pulse and the buzzer are noted where they come; they print nothing', () => {
    const receipt = escpos(
      'A',
      ESC,
      'p',
      0,
      50,
      250,
      ESC,
      'p',
      49,
      25,
      25,
      LF,
      ESC,
      '(',
      'A',
      4,
      0,
      48,
      49,
      3,
      2,
      ESC,
      'B',
      2,
      4,
    )
    expect(receipt.blocks).toEqual([
      { kind: 'pulse', pin: 2, onMs: 100, offMs: 500 },
      { kind: 'pulse', pin: 5, onMs: 50, offMs: 50 },
      { kind: 'text', alignment: 'left', runs: [{ text: 'A', bold: false }] },
      { kind: 'beep', times: 3, durationMs: 200 },
      { kind: 'beep', times: 2, durationMs: 200 },
    ])
    expect(receipt.warnings).toEqual([])
  })
})

describe('ESC/POS feeds and cuts', () => {
  test('ESC d n prints the waiting line and feeds n lines in all', () => {
    const receipt = escpos('A', ESC, 'd', 3, ESC, 'd', 2, LF)
    expect(receipt.blocks).toEqual([
      { kind: 'text', alignment: 'left', runs: [{ text: 'A', bold: false }] },
      { kind: 'feed', lines: 2 },
      { kind: 'feed', lines: 2 },
      { kind: 'text', alignment: 'left', runs: [] },
    ])
  })

  test('GS V cuts fully or partially, with or without feeding first; ESC i and ESC m cut partially', () => {
    const receipt = escpos(
      GS,
      'V',
      0,
      GS,
      'V',
      1,
      GS,
      'V',
      48,
      GS,
      'V',
      49,
      GS,
      'V',
      65,
      3,
      GS,
      'V',
      66,
      3,
      ESC,
      'i',
      ESC,
      'm',
    )
    expect(receipt.blocks.map((block) => block.kind === 'cut' && block.partial)).toEqual([
      false,
      true,
      false,
      true,
      false,
      true,
      true,
      true,
    ])
    expect(receipt.warnings).toEqual([])
  })

  test('a cut in the middle of a line prints the line first and says so', () => {
    const receipt = escpos('A', GS, 'V', 1)
    expect(receipt.blocks.map((block) => block.kind)).toEqual(['text', 'cut'])
    expect(receipt.warnings).toEqual(['byte 1: GS V in the middle of a line; the text before it is printed first'])
  })
})

describe('ESC/POS raster images', () => {
  test('GS v 0 prints rows of bytes, aligned by ESC a', () => {
    const receipt = escpos(ESC, 'a', 1, GS, 'v', '0', 0, 2, 0, 3, 0, 0xff, 0x00, 0x0f, 0xf0, 0x80, 0x01)
    expect(receipt.blocks).toEqual([
      {
        kind: 'image',
        alignment: 'center',
        width: 16,
        height: 3,
        widthBytes: 2,
        rows: Uint8Array.of(0xff, 0x00, 0x0f, 0xf0, 0x80, 0x01),
      },
    ])
  })

  test('modes 1 to 3 print at double width, double height, or both', () => {
    const receipt = escpos(GS, 'v', '0', 3, 1, 0, 1, 0, 0b1010_0000)
    expect(receipt.blocks).toEqual([
      { kind: 'image', alignment: 'left', width: 16, height: 2, widthBytes: 2, rows: Uint8Array.of(0xcc, 0, 0xcc, 0) },
    ])
  })

  test('a raster image cut short by the end of the input is not printed, and what it claims is never allocated', () => {
    const receipt = escpos('A', LF, GS, 'v', '0', 0, 0xff, 0xff, 0xff, 0xff, ...new Array(10).fill(0xff))
    expect(lineTexts(receipt.blocks)).toEqual(['A'])
    expect(receipt.blocks).toHaveLength(1)
    expect(receipt.warnings).toEqual(['byte 2: the input ends inside this command, so it is not printed'])
  })
})

describe('ESC/POS QR codes', () => {
  const qr = (fn: number, ...parameters: (number | string)[]) => {
    const data = bytes(...parameters)
    return [GS, '(', 'k', (data.length + 2) & 0xff, (data.length + 2) >> 8, 49, fn, ...data] as const
  }

  test('GS ( k stores the data and prints it with the model, module size and error correction set', () => {
    const receipt = escpos(
      ESC,
      'a',
      2,
      ...qr(65, 50, 0),
      ...qr(67, 6),
      ...qr(69, 51),
      ...qr(80, 48, 'hello'),
      ...qr(81, 48),
    )
    expect(receipt.blocks).toEqual([
      { kind: 'qr', alignment: 'right', data: bytes('hello'), moduleDots: 6, errorCorrection: 'H' },
    ])
    expect(receipt.warnings).toEqual([])
  })

  test('printing with no data stored prints nothing and says so', () => {
    const receipt = escpos(...qr(81, 48))
    expect(receipt.blocks).toEqual([])
    expect(receipt.warnings).toEqual(['byte 0: GS ( k fn 81: no QR data is stored, so nothing prints'])
  })

  test('the defaults are 3-dot modules at level L', () => {
    const receipt = escpos(...qr(80, 48, 'x'), ...qr(81, 48))
    expect(receipt.blocks).toEqual([
      { kind: 'qr', alignment: 'left', data: bytes('x'), moduleDots: 3, errorCorrection: 'L' },
    ])
  })
})

describe('ESC/POS barcodes', () => {
  const barcodeOf = (...parts: Parameters<typeof bytes>) => {
    const receipt = escpos(...parts)
    expect(receipt.warnings).toEqual([])
    expect(receipt.blocks).toHaveLength(1)
    return receipt.blocks[0]
  }

  test('code 128 data names its code sets; set C takes digit pairs as bytes; {{ is a brace', () => {
    const data = bytes('{B', 'A{{', '{C', 12, 34)
    expect(barcodeOf(ESC, 'a', 1, GS, 'H', 2, GS, 'h', 80, GS, 'w', 2, GS, 'k', 73, data.length, data)).toEqual({
      kind: 'barcode',
      alignment: 'center',
      symbology: 'code128',
      text: 'A{1234',
      code128: [104, 33, 91, 99, 12, 34],
      moduleDots: 2,
      wideDots: 5,
      heightDots: 80,
      hri: 'below',
    })
  })

  test('code 128 without a code set at the start is refused, as the printer refuses it', () => {
    const receipt = escpos(GS, 'k', 73, 3, 'ABC')
    expect(receipt.blocks).toEqual([])
    expect(receipt.warnings).toEqual(['byte 0: GS k 73: code 128 data must start with {A, {B or {C; nothing prints'])
  })

  test('UPC-A and EAN-13 get their check digit computed when it is left out', () => {
    expect(barcodeOf(GS, 'k', 65, 11, '03600029145')).toMatchObject({
      symbology: 'upca',
      text: '036000291452',
      moduleDots: 3,
      heightDots: 162,
      hri: 'none',
    })
    expect(barcodeOf(GS, 'k', 67, 13, '4006381333931')).toMatchObject({ symbology: 'ean13', text: '4006381333931' })
    // Function A: NUL-terminated.
    expect(barcodeOf(GS, 'k', 2, '400638133393', 0)).toMatchObject({ symbology: 'ean13', text: '4006381333931' })
  })

  test('a wrong check digit is printed corrected, with a warning', () => {
    const receipt = escpos(GS, 'k', 67, 13, '4006381333930')
    expect(receipt.blocks).toMatchObject([{ symbology: 'ean13', text: '4006381333931' }])
    expect(receipt.warnings).toEqual(['byte 0: GS k 67: EAN-13 check digit 0 is wrong; the printer prints 1'])
  })

  test('code 39 gets its start and stop characters from the printer, and wide bars from GS w', () => {
    expect(barcodeOf(GS, 'w', 4, GS, 'k', 69, 5, 'AB-12')).toMatchObject({
      symbology: 'code39',
      text: 'AB-12',
      moduleDots: 4,
      wideDots: 10,
    })
    expect(barcodeOf(GS, 'k', 4, '*XY*', 0)).toMatchObject({ symbology: 'code39', text: 'XY' })
  })

  test('a system the preview does not draw is skipped for its full length', () => {
    const receipt = escpos(GS, 'k', 70, 4, '1234', 'A', LF)
    expect(lineTexts(receipt.blocks)).toEqual(['A'])
    expect(receipt.warnings).toEqual(['byte 0: GS k 70: this barcode system is not drawn by the preview'])
  })
})

test('dotsPerLine outside what printers have is a programming error', () => {
  expect(() => decodeReceipt(new Uint8Array(), { ...ESCPOS_80, dotsPerLine: 0 })).toThrow(RangeError)
})
