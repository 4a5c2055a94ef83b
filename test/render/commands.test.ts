// Golden bytes of every command builder, against the command references (Epson ESC/POS; Star
// StarPRNT Command Specifications).
import { describe, expect, test } from 'bun:test'
import * as escpos from '../../src/render/escpos-commands.ts'
import * as star from '../../src/render/starprnt-commands.ts'
import { bytes, ESC, GS } from './bytes.ts'

const golden = (command: Uint8Array) => Array.from(command)

describe('ESC/POS builders', () => {
  test('modes, feeds and cuts', () => {
    expect(golden(escpos.initialize())).toEqual([0x1b, 0x40])
    expect(golden(escpos.selectCodeTable(19))).toEqual([0x1b, 0x74, 19])
    expect(golden(escpos.selectJustification('left'))).toEqual([0x1b, 0x61, 0])
    expect(golden(escpos.selectJustification('center'))).toEqual([0x1b, 0x61, 1])
    expect(golden(escpos.selectJustification('right'))).toEqual([0x1b, 0x61, 2])
    expect(golden(escpos.selectEmphasis(true))).toEqual([0x1b, 0x45, 1])
    expect(golden(escpos.selectEmphasis(false))).toEqual([0x1b, 0x45, 0])
    expect(golden(escpos.printAndFeedLines(4))).toEqual([0x1b, 0x64, 4])
    expect(golden(escpos.cut('full'))).toEqual([0x1d, 0x56, 0])
    expect(golden(escpos.cut('partial'))).toEqual([0x1d, 0x56, 1])
  })

  test('GS ( k QR functions 65, 67, 69, 80, 81', () => {
    expect(golden(escpos.qrSelectModel2())).toEqual([0x1d, 0x28, 0x6b, 4, 0, 49, 65, 50, 0])
    expect(golden(escpos.qrModuleSize(6))).toEqual([0x1d, 0x28, 0x6b, 3, 0, 49, 67, 6])
    expect(golden(escpos.qrErrorCorrectionM())).toEqual([0x1d, 0x28, 0x6b, 3, 0, 49, 69, 49])
    expect(golden(escpos.qrStore(Uint8Array.of(0x41, 0x42)))).toEqual([0x1d, 0x28, 0x6b, 5, 0, 49, 80, 48, 0x41, 0x42])
    expect(golden(escpos.qrStore(new Uint8Array(300))).slice(0, 8)).toEqual([
      0x1d,
      0x28,
      0x6b,
      303 & 0xff,
      303 >> 8,
      49,
      80,
      48,
    ])
    expect(golden(escpos.qrPrint())).toEqual([0x1d, 0x28, 0x6b, 3, 0, 49, 81, 48])
  })

  test('barcodes: GS H, GS h, GS w, GS k function B', () => {
    expect(golden(escpos.barcodeTextBelow())).toEqual([0x1d, 0x48, 2])
    expect(golden(escpos.barcodeHeight(80))).toEqual([0x1d, 0x68, 80])
    expect(golden(escpos.barcodeModuleWidth(3))).toEqual([0x1d, 0x77, 3])
    expect(golden(escpos.printBarcode(73, Uint8Array.of(0x7b, 0x42, 0x41)))).toEqual([
      0x1d, 0x6b, 73, 3, 0x7b, 0x42, 0x41,
    ])
    expect(escpos.BARCODE_SYSTEMS).toEqual({ upca: 65, ean13: 67, code39: 69, code128: 73 })
  })

  test('GS v 0 raster, with its limits', () => {
    expect(golden(escpos.rasterBitImage(2, 1, Uint8Array.of(0xff, 0x01)))).toEqual([
      0x1d, 0x76, 0x30, 0, 2, 0, 1, 0, 0xff, 0x01,
    ])
    expect(golden(escpos.rasterBitImage(72, 4_095, new Uint8Array(72 * 4_095))).slice(0, 8)).toEqual([
      0x1d, 0x76, 0x30, 0, 72, 0, 0xff, 0x0f,
    ])
    expect(() => escpos.rasterBitImage(72, 4_096, new Uint8Array(72 * 4_096))).toThrow(RangeError)
    expect(() => escpos.rasterBitImage(2, 2, new Uint8Array(3))).toThrow(RangeError)
  })

  test('a parameter that is not a byte is a bug, never sent', () => {
    expect(() => escpos.printAndFeedLines(256)).toThrow(RangeError)
    expect(() => escpos.selectCodeTable(-1)).toThrow(RangeError)
  })
})

describe('StarPRNT builders', () => {
  test('modes, feeds and cuts', () => {
    expect(golden(star.initialize())).toEqual(bytes(ESC, '@'))
    expect(golden(star.selectCodePage(4))).toEqual(bytes(ESC, GS, 't', 4))
    expect(golden(star.specifyAlignment('left'))).toEqual(bytes(ESC, GS, 'a', 0))
    expect(golden(star.specifyAlignment('center'))).toEqual(bytes(ESC, GS, 'a', 1))
    expect(golden(star.specifyAlignment('right'))).toEqual(bytes(ESC, GS, 'a', 2))
    expect(golden(star.emphasis(true))).toEqual(bytes(ESC, 'E'))
    expect(golden(star.emphasis(false))).toEqual(bytes(ESC, 'F'))
    expect(golden(star.feedLines(3))).toEqual(bytes(ESC, 'a', 3))
    expect(golden(star.feedAndCut('full'))).toEqual(bytes(ESC, 'd', 2))
    expect(golden(star.feedAndCut('partial'))).toEqual(bytes(ESC, 'd', 3))
  })

  test('QR: ESC GS y S 0/1/2, ESC GS y D 1, ESC GS y P', () => {
    expect(golden(star.qrSelectModel2())).toEqual(bytes(ESC, GS, 'y', 'S', '0', 2))
    expect(golden(star.qrErrorCorrectionM())).toEqual(bytes(ESC, GS, 'y', 'S', '1', 1))
    expect(golden(star.qrCellSize(5))).toEqual(bytes(ESC, GS, 'y', 'S', '2', 5))
    expect(golden(star.qrStore(Uint8Array.of(0x41, 0x42)))).toEqual(bytes(ESC, GS, 'y', 'D', '1', 0, 2, 0, 'AB'))
    expect(golden(star.qrStore(new Uint8Array(300))).slice(0, 8)).toEqual(
      bytes(ESC, GS, 'y', 'D', '1', 0, 300 & 0xff, 300 >> 8),
    )
    expect(golden(star.qrPrint())).toEqual(bytes(ESC, GS, 'y', 'P'))
  })

  test('barcode: ESC b n1 n2 n3 n4 data RS', () => {
    expect(golden(star.printBarcode(6, 2, 80, Uint8Array.of(0x41, 0x31)))).toEqual(
      bytes(ESC, 'b', 6, 2, 2, 80, 'A1', 0x1e),
    )
  })

  test('raster: ESC GS S 1 xL xH yL yH 0 data', () => {
    expect(golden(star.rasterGraphic(2, 1, Uint8Array.of(0xff, 0x01)))).toEqual(
      bytes(ESC, GS, 'S', 1, 2, 0, 1, 0, 0, 0xff, 0x01),
    )
    expect(() => star.rasterGraphic(2, 2, new Uint8Array(3))).toThrow(RangeError)
  })
})
