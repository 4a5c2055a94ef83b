import { describe, expect, test } from 'bun:test'
import { CodePageEncoder, type PrinterCodePage } from '../../src/render/code-page.ts'
import { CODE_PAGES } from '../../src/render/code-pages.ts'
import { selectCodeTable } from '../../src/render/escpos-commands.ts'

const ESC_T = (n: number) => [0x1b, 0x74, n]
// Epson's numbers: PC858 19, PC852 18, PC866 17, PC737 14, PC857 13.
const EPSON_PAGES: PrinterCodePage[] = [
  { page: CODE_PAGES.cp858, table: 19 },
  { page: CODE_PAGES.cp852, table: 18 },
  { page: CODE_PAGES.cp866, table: 17 },
  { page: CODE_PAGES.cp737, table: 14 },
  { page: CODE_PAGES.cp857, table: 13 },
]
const encoder = () => new CodePageEncoder(EPSON_PAGES, selectCodeTable)

/** A line encoded by a fresh encoder that starts in PC858, as every job does. */
const encoded = (text: string) => Array.from(encoder().encode(text))

describe('code pages', () => {
  test('printable ASCII passes as is', () => {
    const ascii = Array.from({ length: 0x5f }, (_, i) => String.fromCharCode(0x20 + i)).join('')
    expect(encoded(ascii)).toEqual(Array.from({ length: 0x5f }, (_, i) => 0x20 + i))
  })

  test('Western European letters and the euro sign stay in PC858', () => {
    expect(encoded('Crème brûlée 4,50 €')).toEqual([
      0x43, 0x72, 0x8a, 0x6d, 0x65, 0x20, 0x62, 0x72, 0x96, 0x6c, 0x82, 0x65, 0x20, 0x34, 0x2c, 0x35, 0x30, 0x20, 0xd5,
    ])
    expect(encoded('ÇüéÄÅÉæÆøØßñÑ¿¡£¥©®°±µ')).toEqual([
      0x80, 0x81, 0x82, 0x8e, 0x8f, 0x90, 0x91, 0x92, 0x9b, 0x9d, 0xe1, 0xa4, 0xa5, 0xa8, 0xad, 0x9c, 0xbe, 0xb8, 0xa9,
      0xf8, 0xf1, 0xe6,
    ])
    expect(encoded('\u00a0')).toEqual([0xff])
  })

  test('German with the euro sign: no switch at all', () => {
    expect(encoded('Größe: 3 × Brötchen 2,40 €')).not.toContain(0x1b)
  })

  test('Polish switches to PC852 for its letters, and stays there while it can', () => {
    // ł 0x88, ó 0xA2 (also in PC858, but PC852 is current by then), ż 0xBE, ą 0xA5, ę 0xA9
    expect(encoded('Zażółć gęślą')).toEqual([
      0x5a,
      0x61,
      ...ESC_T(18),
      0xbe,
      0xa2,
      0x88,
      0x86,
      0x20,
      0x67,
      0xa9,
      0x98,
      0x6c,
      0xa5,
    ])
  })

  test('Russian in PC866, Greek in PC737, Turkish in PC857', () => {
    expect(encoded('Борщ')).toEqual([...ESC_T(17), 0x81, 0xae, 0xe0, 0xe9])
    expect(encoded('Καλημέρα')).toEqual([...ESC_T(14), 0x89, 0x98, 0xa2, 0x9e, 0xa3, 0xe2, 0xa8, 0x98])
    expect(encoded('Şiş kebabı')).toEqual([...ESC_T(13), 0x9e, 0x69, 0x9f, 0x20, 0x6b, 0x65, 0x62, 0x61, 0x62, 0x8d])
  })

  test('a line that mixes scripts switches within the line, and back', () => {
    expect(encoded('€ Ж €')).toEqual([0xd5, 0x20, ...ESC_T(17), 0x86, 0x20, ...ESC_T(19), 0xd5])
  })

  test('the encoder remembers the page across lines of one job', () => {
    const job = encoder()
    expect(Array.from(job.start())).toEqual(ESC_T(19))
    expect(Array.from(job.encode('Ж'))).toEqual([...ESC_T(17), 0x86])
    expect(Array.from(job.encode('Ж'))).toEqual([0x86])
  })

  test('every character of every code page round-trips to its byte', () => {
    for (const { page } of EPSON_PAGES) {
      Array.from(page.high).forEach((character, i) => {
        if (character === '\u0000') return
        const bytes = Array.from(new CodePageEncoder([{ page, table: 0 }], selectCodeTable).encode(character))
        expect([page.name, character, bytes]).toEqual([page.name, character, [0x80 + i]])
      })
    }
  })

  test('knows which characters it can print: printable ASCII and the pages, no controls', () => {
    const job = encoder()
    for (const character of ['a', '~', ' ', 'é', '€', 'ł', 'Ж', 'Ω', 'ı', '\u00a0'])
      expect([character, job.has(character)]).toEqual([character, true])
    for (const character of ['中', '😀', '\u0301', '\u0000', '\t', '\u001b', '\u007f', '\u0085'])
      expect([character, job.has(character)]).toEqual([character, false])
  })

  test('a page the printer lacks is never used', () => {
    const westernOnly = new CodePageEncoder([{ page: CODE_PAGES.cp858, table: 19 }], selectCodeTable)
    expect(westernOnly.has('Ж')).toBe(false)
    expect(() => westernOnly.encode('Ж')).toThrow(RangeError)
  })
})
