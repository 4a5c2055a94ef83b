import { describe, expect, test } from 'bun:test'
import { encodePc858 } from '../../src/render/code-page.ts'
import { RenderError } from '../../src/render/render.ts'

const encoded = (text: string) => Array.from(encodePc858(text))

function refusal(text: string): RenderError {
  try {
    encodePc858(text)
  } catch (error) {
    if (error instanceof RenderError) return error
    throw error
  }
  throw new Error(`${JSON.stringify(text)} was encoded`)
}

describe('PC858', () => {
  test('printable ASCII passes as is', () => {
    const ascii = Array.from({ length: 0x5f }, (_, i) => String.fromCharCode(0x20 + i)).join('')
    expect(encoded(ascii)).toEqual(Array.from({ length: 0x5f }, (_, i) => 0x20 + i))
  })

  test('Western European letters and the euro sign', () => {
    expect(encoded('Crème brûlée 4,50 €')).toEqual([
      0x43, 0x72, 0x8a, 0x6d, 0x65, 0x20, 0x62, 0x72, 0x96, 0x6c, 0x82, 0x65, 0x20, 0x34, 0x2c, 0x35, 0x30, 0x20, 0xd5,
    ])
    expect(encoded('ÇüéÄÅÉæÆøØßñÑ¿¡£¥©®°±µ')).toEqual([
      0x80, 0x81, 0x82, 0x8e, 0x8f, 0x90, 0x91, 0x92, 0x9b, 0x9d, 0xe1, 0xa4, 0xa5, 0xa8, 0xad, 0x9c, 0xbe, 0xb8, 0xa9, 0xf8, 0xf1, 0xe6,
    ])
    expect(encoded('\u00a0')).toEqual([0xff])
  })

  test('a character outside the code page is refused by code point, never replaced', () => {
    for (const [text, codePoint] of [
      ['Ω', 'U+03A9'],
      ['中', 'U+4E2D'],
      ['ı', 'U+0131'],
      ['price 😀', 'U+1F600'],
      ['\u0301', 'U+0301'],
    ]) {
      const error = refusal(text!)
      expect(error.code).toBe('render.unsupported_character')
      expect(error.retryable).toBe(false)
      expect(error.message).toContain(codePoint!)
    }
  })

  test('control characters are refused: in the stream they would be commands', () => {
    expect(refusal('a\x1bd\x05').message).toContain('U+001B')
    expect(refusal('\x7f').message).toContain('U+007F')
    expect(refusal('\x85').message).toContain('U+0085')
  })
})
