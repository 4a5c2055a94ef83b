// The preview's code page tables against glibc's iconv, read here byte for byte again, and the
// numbers that select them in each language.
import { describe, expect, test } from 'bun:test'
import { glyph } from '../../src/glyphs/glyphs.ts'
import {
  CODE_PAGE_NAMES,
  type CodePageName,
  decodeReceipt,
  EPSON_CODE_TABLES,
  STAR_CODE_PAGES,
} from '../../src/preview/preview.ts'
import { bytes, ESC, GS, LF } from './support.ts'

const GLIBC_NAMES: Record<CodePageName, string> = {
  cp437: 'CP437',
  cp850: 'CP850',
  cp852: 'CP852',
  cp857: 'CP857',
  cp858: 'CP858',
  cp866: 'CP866',
  cp737: 'CP737',
  cp1252: 'CP1252',
}

const HIGH_BYTES = Array.from({ length: 128 }, (_, i) => 0x80 + i)

/** What iconv makes of one byte, or undefined when the page has no character for it. */
function iconv(page: CodePageName, byte: number): string | undefined {
  const result = Bun.spawnSync(['iconv', '-f', GLIBC_NAMES[page], '-t', 'UTF-8'], { stdin: Uint8Array.of(byte) })
  return result.exitCode === 0 ? result.stdout.toString() : undefined
}

describe.each(CODE_PAGE_NAMES)('%s', (page) => {
  // Read through the decoder: the page selected with an Epson or Star number that means it.
  const read = (byte: number) => {
    const receipt = decodeReceipt(bytes(ESC, 't', 1, byte, LF), {
      dotsPerLine: 576,
      commandSet: 'escpos',
      codeTables: { 1: page },
    })
    const line = receipt.blocks[0]
    return line?.kind === 'text' ? line.runs.map((run) => run.text).join('') : undefined
  }

  test('bytes 0x80 to 0xFF read as glibc reads them; U+FFFD where glibc has nothing', () => {
    for (const byte of HIGH_BYTES) expect([byte, read(byte)]).toEqual([byte, iconv(page, byte) ?? '\uFFFD'])
  })

  test('every character has a glyph in the font the PNG is drawn with', () => {
    for (const byte of HIGH_BYTES)
      expect([byte, glyph(read(byte)!.codePointAt(0)!) !== undefined]).toEqual([byte, true])
  })
})

test("Epson's ESC t and Star's ESC GS t numbers select the same pages", () => {
  const epson = (table: number) =>
    decodeReceipt(bytes(ESC, 't', table, 0xd5, LF), { dotsPerLine: 576, commandSet: 'escpos' }).blocks
  const star = (table: number) =>
    decodeReceipt(bytes(ESC, GS, 't', table, 0xd5, LF), { dotsPerLine: 576, commandSet: 'starprnt' }).blocks
  const pages = (tables: Readonly<Record<number, CodePageName>>) => Object.values(tables).sort()
  expect(new Set(pages(EPSON_CODE_TABLES))).toEqual(new Set(CODE_PAGE_NAMES))
  expect(new Set(pages(STAR_CODE_PAGES))).toEqual(new Set(CODE_PAGE_NAMES.filter((page) => page !== 'cp850')))
  expect(epson(19)).toEqual(star(4))
  expect(epson(18)).toEqual(star(5))
  expect(epson(17)).toEqual(star(10))
  expect(epson(14)).toEqual(star(15))
  expect(epson(13)).toEqual(star(12))
  expect(epson(16)).toEqual(star(32))
  expect(epson(0)).toEqual(star(1))
})
