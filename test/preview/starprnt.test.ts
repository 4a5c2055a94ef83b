// Hand-written StarPRNT byte sequences (not the renderer's output) and what the preview reads in them.
import { describe, expect, test } from 'bun:test'
import { decodeReceipt } from '../../src/preview/preview.ts'
import { bytes, ESC, GS, LF, lineTexts, RS, STAR_80, star } from './support.ts'

describe('StarPRNT text', () => {
  test('bytes from 0x80 up read in the code page ESC GS t selects, in Star numbering', () => {
    const receipt = star(
      ESC,
      '@',
      ESC,
      GS,
      't',
      4,
      'Caf',
      0x82,
      ' 5',
      0xd5,
      LF, // PC858
      ESC,
      GS,
      't',
      5,
      0x88,
      LF, // PC852
      ESC,
      GS,
      't',
      10,
      0x86,
      LF, // PC866
      ESC,
      GS,
      't',
      15,
      0x97,
      LF, // PC737
      ESC,
      GS,
      't',
      12,
      0x8d,
      LF, // PC857
      ESC,
      GS,
      't',
      32,
      0x80,
      LF, // WPC1252
      ESC,
      GS,
      't',
      1,
      0xd5,
      LF, // PC437
    )
    expect(lineTexts(receipt.blocks)).toEqual(['Café 5€', 'ł', 'Ж', 'Ω', 'ı', '€', '╒'])
    expect(receipt.warnings).toEqual([])
  })

  test('ESC GS a aligns, ESC E and ESC F turn emphasis on and off', () => {
    const receipt = star(ESC, GS, 'a', 1, ESC, 'E', 'Total', ESC, 'F', ' 5', LF, ESC, GS, 'a', 2, 'R', LF)
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
    ])
    expect(receipt.warnings).toEqual([])
  })

  test('ESC i expands, ESC - underlines, ESC 4 and ESC 5 invert, ESC RS F picks the font; ESC @ resets them', () => {
    const receipt = star(
      ESC,
      'i',
      1,
      2,
      'Big',
      ESC,
      '-',
      1,
      ESC,
      '4',
      ESC,
      RS,
      'F',
      1,
      'x',
      LF,
      ESC,
      '5',
      ESC,
      '-',
      0,
      'y',
      LF,
      ESC,
      '@',
      'z',
      LF,
      ESC,
      'i',
      6,
      0,
      'w',
      LF,
    )
    expect(receipt.blocks).toEqual([
      {
        kind: 'text',
        alignment: 'left',
        runs: [
          { text: 'Big', bold: false, size: { width: 3, height: 2 } },
          { text: 'x', bold: false, size: { width: 3, height: 2 }, underline: 1, invert: true, font: 'b' },
        ],
      },
      { kind: 'text', alignment: 'left', runs: [{ text: 'y', bold: false, size: { width: 3, height: 2 }, font: 'b' }] },
      { kind: 'text', alignment: 'left', runs: [{ text: 'z', bold: false }] },
      { kind: 'text', alignment: 'left', runs: [{ text: 'w', bold: false }] },
    ])
    expect(receipt.warnings).toEqual(['byte 29: ESC i 6 0 is not a character expansion (0 to 5); ignored'])
  })

  test('ESC BEL sets the drawer pulse, BEL and SUB drive pins 2 and 5; ESC GS EM DC1 and DC2 sound the buzzer', () => {
    const receipt = star(0x07, ESC, 0x07, 10, 50, 0x1a, ESC, GS, 0x19, 0x11, 1, 10, 10, ESC, GS, 0x19, 0x12, 1, 3, 0)
    expect(receipt.blocks).toEqual([
      { kind: 'pulse', pin: 2, onMs: 200, offMs: 200 },
      { kind: 'pulse', pin: 5, onMs: 100, offMs: 500 },
      { kind: 'beep', times: 3, durationMs: 200 },
    ])
    expect(receipt.warnings).toEqual([])
  })

  test('a code table number can mean another page on another model', () => {
    const receipt = decodeReceipt(bytes(ESC, GS, 't', 7, 0xd5, LF), { ...STAR_80, codeTables: { 7: 'cp858' } })
    expect(lineTexts(receipt.blocks)).toEqual(['€'])
  })
})

describe('StarPRNT feeds and cuts', () => {
  test('ESC a n feeds n lines; ESC d cuts, 0 and 2 fully, 1 and 3 partially', () => {
    const receipt = star(ESC, 'a', 3, ESC, 'd', 0, ESC, 'd', 1, ESC, 'd', 2, ESC, 'd', 3)
    expect(receipt.blocks).toEqual([
      { kind: 'feed', lines: 3 },
      { kind: 'cut', partial: false },
      { kind: 'cut', partial: true },
      { kind: 'cut', partial: false },
      { kind: 'cut', partial: true },
    ])
    expect(receipt.warnings).toEqual([])
  })
})

describe('StarPRNT raster graphics', () => {
  test('ESC GS S 1 xL xH yL yH 0 prints rows of bytes', () => {
    const receipt = star(ESC, GS, 'a', 1, ESC, GS, 'S', 1, 2, 0, 3, 0, 0, 0xff, 0x00, 0x0f, 0xf0, 0x80, 0x01)
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

  test('a raster graphic cut short by the end of the input is not printed', () => {
    const receipt = star(ESC, GS, 'S', 1, 0xff, 0xff, 0xff, 0xff, 0, 1, 2, 3)
    expect(receipt.blocks).toEqual([])
    expect(receipt.warnings).toEqual(['byte 0: the input ends inside this command, so it is not printed'])
  })
})

describe('StarPRNT QR codes', () => {
  test('ESC GS y S sets model, level and cell size; ESC GS y D 1 stores; ESC GS y P prints', () => {
    const receipt = star(
      ESC,
      GS,
      'y',
      'S',
      '0',
      2,
      ESC,
      GS,
      'y',
      'S',
      '1',
      3,
      ESC,
      GS,
      'y',
      'S',
      '2',
      5,
      ESC,
      GS,
      'y',
      'D',
      '1',
      0,
      5,
      0,
      'hello',
      ESC,
      GS,
      'y',
      'P',
    )
    expect(receipt.blocks).toEqual([
      { kind: 'qr', alignment: 'left', data: bytes('hello'), moduleDots: 5, errorCorrection: 'H' },
    ])
    expect(receipt.warnings).toEqual([])
  })

  test('the initial settings are level L and 3-dot cells', () => {
    const receipt = star(ESC, GS, 'y', 'D', '1', 0, 1, 0, 'x', ESC, GS, 'y', 'P')
    expect(receipt.blocks).toEqual([
      { kind: 'qr', alignment: 'left', data: bytes('x'), moduleDots: 3, errorCorrection: 'L' },
    ])
  })
})

describe('StarPRNT barcodes', () => {
  const barcodeOf = (...parts: Parameters<typeof bytes>) => {
    const receipt = star(...parts)
    expect(receipt.warnings).toEqual([])
    expect(receipt.blocks).toHaveLength(1)
    return receipt.blocks[0]
  }

  test('code 128 is plain text; the printer picks the code sets, C for runs of digits', () => {
    expect(barcodeOf(ESC, 'b', 6, 2, 2, 80, 'AB1234', RS)).toEqual({
      kind: 'barcode',
      alignment: 'left',
      symbology: 'code128',
      text: 'AB1234',
      code128: [104, 33, 34, 99, 12, 34],
      moduleDots: 3,
      wideDots: 9,
      heightDots: 80,
      hri: 'below',
    })
    expect(barcodeOf(ESC, 'b', 6, 1, 1, 50, '12345', RS)).toMatchObject({
      code128: [104, 17, 99, 23, 45],
      moduleDots: 2,
      hri: 'none',
    })
  })

  test(
    "code 128's % escapes: %0 is %, % and @ to _ are control characters, %1 " +
      'to %4 are FNC1-4, %6 to %8 choose the start',
    () => {
      expect(barcodeOf(ESC, 'b', 6, 2, 2, 80, '5%0', RS)).toMatchObject({ text: '5%', code128: [104, 21, 5] })
      expect(barcodeOf(ESC, 'b', 6, 2, 2, 80, '%8', '1234', '%1', 'a%I', RS)).toMatchObject({
        text: '1234a\t',
        code128: [105, 12, 34, 102, 100, 65, 101, 73],
      })
      const receipt = star(ESC, 'b', 6, 2, 2, 80, 'ab%', RS)
      expect(receipt.blocks).toEqual([])
      expect(receipt.warnings).toEqual(['byte 0: ESC b: code 128 data ends with a lone %; nothing prints'])
    },
  )

  test('UPC-A, EAN-13 and code 39, with the check digit the printer computes', () => {
    expect(barcodeOf(ESC, 'b', 1, 2, 1, 50, '03600029145', RS)).toMatchObject({
      symbology: 'upca',
      text: '036000291452',
      moduleDots: 2,
    })
    expect(barcodeOf(ESC, 'b', '3', '2', '2', 60, '4006381333931', RS)).toMatchObject({
      symbology: 'ean13',
      text: '4006381333931',
      moduleDots: 3,
    })
    expect(barcodeOf(ESC, 'b', 4, 2, 2, 60, 'ABC', RS)).toMatchObject({
      symbology: 'code39',
      text: 'ABC',
      moduleDots: 3,
      wideDots: 9,
    })
  })

  test('a type the preview does not draw is skipped up to its RS', () => {
    const receipt = star(ESC, 'b', 5, 2, 2, 60, '1234', RS, 'A', LF)
    expect(lineTexts(receipt.blocks)).toEqual(['A'])
    expect(receipt.warnings).toEqual(['byte 0: ESC b type 5: this barcode type is not drawn by the preview'])
  })
})
