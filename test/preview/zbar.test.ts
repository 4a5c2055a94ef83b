// The preview's pictures read by a real barcode reader, zbar's zbarimg (Debian zbar-tools): what
// the renderer prints scans back to exactly the document's value, and every bar pattern of the
// preview's own tables scans as what it should be.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type DecodeOptions, decodeReceipt, receiptPng } from '../../src/preview/preview.ts'
import { findProfile, PROFILES } from '../../src/profiles/catalog.ts'
import type { PrinterProfile } from '../../src/profiles/profile.ts'
import type { PaperWidth, Section } from '../../src/protocol/document.ts'
import { render, renderTarget } from '../../src/render/render.ts'
import { codeTablesOf } from '../../src/profiles/profile.ts'
import { bytes, GS } from './support.ts'

const directory = mkdtempSync(join(tmpdir(), 'printhub-preview-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

let files = 0

/**
 * What zbarimg reads in a PNG, as bytes. `-Sbinary` passes QR data through as it is (zbar would
 * otherwise guess a character set); `-Supca.enable=1` reports UPC-A as 12 digits rather than as
 * an EAN-13 with a leading 0 (so an EAN-13 starting with 0 would come back as UPC-A).
 */
function scan(png: Uint8Array): Uint8Array {
  const file = join(directory, `${files++}.png`)
  writeFileSync(file, png)
  const result = Bun.spawnSync(['zbarimg', '--raw', '-q', '-Sbinary', '-Supca.enable=1', file])
  if (result.exitCode !== 0)
    throw new Error(`zbarimg found nothing in ${file} (exit ${result.exitCode}): ${result.stderr.toString()}`)
  return new Uint8Array(result.stdout)
}

const utf8 = new TextEncoder()

describe('rendered documents scan back to their values', () => {
  const profile = (id: string): PrinterProfile => {
    const found = findProfile(id)
    if (!found) throw new Error(`no printer profile ${id}`)
    return found
  }
  const targets: { profile: PrinterProfile; width: PaperWidth }[] = [
    { profile: profile('generic-58mm'), width: 58 },
    { profile: profile('generic-80mm'), width: 80 },
    { profile: profile('star-tsp143iv'), width: 58 },
    { profile: profile('star-tsp143iv'), width: 80 },
  ]
  // Values short enough for 58 mm paper.
  const sections: [string, Section & { value: string }][] = [
    ['QR, ASCII', { type: 'qr', value: 'https://example.com/r/42' }],
    ['QR, UTF-8', { type: 'qr', value: 'Café €5 https://example.com/r/42' }],
    ['QR, digits only', { type: 'qr', value: '40063813339310' }],
    ['code 128, text and digits', { type: 'barcode', format: 'code128', value: 'ABC-12345678' }],
    ['code 128, odd digit runs, braces, per cent', { type: 'barcode', format: 'code128', value: '12345 {x} 5%' }],
    ['code 39', { type: 'barcode', format: 'code39', value: 'C-39 1.5$' }],
    ['EAN-13', { type: 'barcode', format: 'ean13', value: '4006381333931' }],
    ['UPC-A', { type: 'barcode', format: 'upca', value: '036000291452' }],
  ]

  describe.each(targets)('$profile.id at $width mm', ({ profile, width }) => {
    test.each(sections)('%s', (_, section) => {
      const target = renderTarget(profile, width)
      const receipt = decodeReceipt(render({ width, sections: [section] }, target), {
        dotsPerLine: target.dotsPerLine,
        commandSet: profile.commandSet,
        codeTables: codeTablesOf(profile),
      })
      expect(receipt.warnings).toEqual([])
      expect(new TextDecoder().decode(scan(receiptPng(receipt, target.dotsPerLine)))).toBe(section.value)
    })
  })
})

test('a model without a QR command gets a picture of the symbol, and it scans too', () => {
  const value = 'Café €5 https://example.com/r/42'
  const withoutQr = PROFILES.filter((p) => !p.qr)
  expect(withoutQr.length).toBeGreaterThan(0)
  for (const profile of withoutQr) {
    for (const width of profile.paperWidths) {
      const target = renderTarget(profile, width)
      const receipt = decodeReceipt(render({ width, sections: [{ type: 'qr', value }] }, target), {
        dotsPerLine: target.dotsPerLine,
        commandSet: profile.commandSet,
      })
      expect(receipt.blocks.every((block) => block.kind === 'image')).toBe(true)
      expect(new TextDecoder().decode(scan(receiptPng(receipt, target.dotsPerLine)))).toBe(value)
    }
  }
})

describe("every pattern of the preview's tables scans", () => {
  /** The widest paper, so 32 code 128 symbols of 2-dot modules fit with their quiet zones. */
  const WIDE: DecodeOptions = { dotsPerLine: 832, commandSet: 'escpos' }
  const drawn = (data: Uint8Array, system: number) => {
    const receipt = decodeReceipt(bytes(GS, 'w', 2, GS, 'h', 60, GS, 'k', system, data.length, data), WIDE)
    expect(receipt.warnings).toEqual([])
    return receiptPng(receipt, WIDE.dotsPerLine)
  }
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i)
  const chunks = <T>(items: T[], size: number) =>
    range(0, Math.ceil(items.length / size)).map((i) => items.slice(i * size, (i + 1) * size))

  test('code 128: all 96 values of code sets A and B, the 100 of code set C', () => {
    // Code set A: values 0-63 are 0x20-0x5F, 64-95 the control characters 0x00-0x1F.
    for (const chunk of chunks(range(0, 96), 32)) {
      const characters = chunk.map((value) => (value < 64 ? value + 0x20 : value - 64))
      expect(scan(drawn(bytes('{A', characters), 73))).toEqual(Uint8Array.from(characters))
    }
    for (const chunk of chunks(range(0x20, 0x80), 32)) {
      const data = chunk.flatMap((byte) => (byte === 0x7b ? [0x7b, 0x7b] : [byte]))
      expect(scan(drawn(bytes('{B', data), 73))).toEqual(Uint8Array.from(chunk))
    }
    for (const chunk of chunks(range(0, 100), 32)) {
      expect(new TextDecoder().decode(scan(drawn(bytes('{C', chunk), 73)))).toBe(
        chunk.map((pair) => String(pair).padStart(2, '0')).join(''),
      )
    }
  })

  test('code 128: code set switches, shift, and FNC1 to FNC4 (which zbar reads and leaves out)', () => {
    expect(
      new TextDecoder().decode(scan(drawn(bytes('{A', 'X', '{B', 'y', '{C', 12, '{A', 'Z', '{C', 34, '{B', 'w'), 73))),
    ).toBe('Xy12Z34w')
    expect(new TextDecoder().decode(scan(drawn(bytes('{B', 'a', '{S', 0x09, 'b', '{A', 'C', '{S', 'd'), 73)))).toBe(
      'a\tbCd',
    )
    expect(
      new TextDecoder().decode(
        scan(drawn(bytes('{B', 'a', '{1', 'b', '{2', 'c', '{3', 'd', '{4', 'e', '{A', 'F', '{4', 'G'), 73)),
      ),
    ).toBe('abcdeFG')
  })

  test('code 39: the whole alphabet', () => {
    const alphabet = Array.from('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%')
    for (const chunk of chunks(alphabet, 15))
      expect(new TextDecoder().decode(scan(drawn(utf8.encode(chunk.join('')), 69)))).toBe(chunk.join(''))
  })

  test('EAN-13 with each first digit (each parity pattern), and UPC-A', () => {
    for (const first of range(1, 10)) {
      const digits =
        String(first) +
        range(0, 11)
          .map((i) => (first * 7 + i * 3) % 10)
          .join('')
      const receipt = decodeReceipt(bytes(GS, 'k', 67, 12, digits), WIDE)
      const withCheck = receipt.blocks[0]?.kind === 'barcode' ? receipt.blocks[0].text : ''
      expect(withCheck).toHaveLength(13)
      expect(new TextDecoder().decode(scan(receiptPng(receipt, WIDE.dotsPerLine)))).toBe(withCheck)
    }
    for (const value of ['01234567890', '98765432109', '55555555555']) {
      const receipt = decodeReceipt(bytes(GS, 'k', 65, 11, value), WIDE)
      expect(new TextDecoder().decode(scan(receiptPng(receipt, WIDE.dotsPerLine)))).toHaveLength(12)
    }
  })
})
