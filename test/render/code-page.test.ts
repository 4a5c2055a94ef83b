import { describe, expect, test } from 'bun:test'
import { CodePageEncoder, DEFAULT_CODE_PAGES } from '../../src/render/code-page.ts'
import { PC737, PC852, PC857, PC858, PC866 } from '../../src/render/code-pages.ts'
import { RenderError } from '../../src/render/render.ts'

const ESC_T = (n: number) => [0x1b, 0x74, n]

/** A line encoded by a fresh encoder that starts in PC858, as every job does. */
const encoded = (text: string) => Array.from(new CodePageEncoder(DEFAULT_CODE_PAGES, PC858).encode(text))

function refusal(text: string): RenderError {
  try {
    encoded(text)
  } catch (error) {
    if (error instanceof RenderError) return error
    throw error
  }
  throw new Error(`${JSON.stringify(text)} was encoded`)
}

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
      0x80, 0x81, 0x82, 0x8e, 0x8f, 0x90, 0x91, 0x92, 0x9b, 0x9d, 0xe1, 0xa4, 0xa5, 0xa8, 0xad, 0x9c, 0xbe, 0xb8, 0xa9, 0xf8, 0xf1, 0xe6,
    ])
    expect(encoded('\u00a0')).toEqual([0xff])
  })

  test('German with the euro sign: no switch at all', () => {
    expect(encoded('Größe: 3 × Brötchen 2,40 €')).not.toContain(0x1b)
  })

  test('Polish switches to PC852 for its letters, and stays there while it can', () => {
    // ł 0x88, ó 0xA2 (also in PC858, but PC852 is current by then), ż 0xBE, ą 0xA5, ę 0xA9
    expect(encoded('Zażółć gęślą')).toEqual([
      0x5a, 0x61, ...ESC_T(PC852.escT), 0xbe, 0xa2, 0x88, 0x86, 0x20, 0x67, 0xa9, 0x98, 0x6c, 0xa5,
    ])
  })

  test('Russian in PC866, Greek in PC737, Turkish in PC857', () => {
    expect(encoded('Борщ')).toEqual([...ESC_T(PC866.escT), 0x81, 0xae, 0xe0, 0xe9])
    expect(encoded('Καλημέρα')).toEqual([...ESC_T(PC737.escT), 0x89, 0x98, 0xa2, 0x9e, 0xa3, 0xe2, 0xa8, 0x98])
    expect(encoded('Şiş kebabı')).toEqual([...ESC_T(PC857.escT), 0x9e, 0x69, 0x9f, 0x20, 0x6b, 0x65, 0x62, 0x61, 0x62, 0x8d])
  })

  test('a line that mixes scripts switches within the line, and back', () => {
    expect(encoded('€ Ж €')).toEqual([0xd5, 0x20, ...ESC_T(PC866.escT), 0x86, 0x20, ...ESC_T(PC858.escT), 0xd5])
  })

  test('the encoder remembers the page across lines of one job', () => {
    const encoder = new CodePageEncoder(DEFAULT_CODE_PAGES, PC858)
    expect(Array.from(encoder.encode('Ж'))).toEqual([...ESC_T(PC866.escT), 0x86])
    expect(Array.from(encoder.encode('Ж'))).toEqual([0x86])
  })

  test('every character of every code page round-trips to its byte', () => {
    for (const page of DEFAULT_CODE_PAGES) {
      Array.from(page.high).forEach((character, i) => {
        if (character === '\u0000') return
        const bytes = Array.from(new CodePageEncoder([page], page).encode(character))
        expect([page.name, character, bytes]).toEqual([page.name, character, [0x80 + i]])
      })
    }
  })

  test('a character no code page has is refused by code point, never replaced', () => {
    for (const [text, codePoint] of [
      ['中', 'U+4E2D'],
      ['price 😀', 'U+1F600'],
      ['\u0301', 'U+0301'],
      ['\u0000', 'U+0000'],
      ['tab\there', 'U+0009'],
      ['\u001b@', 'U+001B'],
      ['\u007f', 'U+007F'],
    ]) {
      const error = refusal(text!)
      expect(error.code).toBe('render.unsupported_character')
      expect(error.retryable).toBe(false)
      expect(error.message).toBe(`${codePoint} is in none of the code pages PC858, PC852, PC866, PC737, PC857 and cannot be printed as text`)
    }
  })
})
