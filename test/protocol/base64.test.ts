// isStandardBase64 (protocol/image.ts) accepts exactly the strings of the schema's definition:
// the alphabet, `=` padding only at the end, a length that is a multiple of 4.
import { describe, expect, test } from 'bun:test'
import { isStandardBase64 } from '../../src/protocol/image.ts'

/** The definition, as a regular expression (what the check used to run, seven times slower). */
const reference = (text: string) => text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text)

describe('standard base64', () => {
  test('the edges: padding, misplaced padding, whitespace, other alphabets, non-zero pad bits', () => {
    const cases: [string, boolean][] = [
      ['', true],
      ['QUFB', true],
      ['QUE=', true],
      ['QQ==', true],
      ['QR==', true], // pad bits that are not zero: the schema's pattern allows them
      ['QQ=', false],
      ['QQ', false],
      ['Q===', false],
      ['====', false],
      ['QQ==QUFB', false],
      ['QUFBQ===', false],
      ['QUF BQ==', false],
      ['QUFB\n', false],
      ['QU\nFBQQ==', false],
      ['QUFB    ', false],
      ['QUF\tBQUE', false],
      ['QU-_', false], // base64url
      ['QUFBé===', false],
      ['QUFB\u00a0\u00a0\u00a0\u00a0', false],
    ]
    for (const [text, valid] of cases) expect([text, isStandardBase64(text)]).toEqual([text, valid])
  })

  test('agrees with the definition on 50,000 random strings over the characters that matter', () => {
    const alphabet = ['A', 'Q', 'z', '0', '+', '/', '=', ' ', '\n', '\t', '-', '_', '*', 'é']
    let seed = 12345
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % n
    }
    let valid = 0
    for (let i = 0; i < 50_000; i++) {
      // Mostly base64 characters, so that valid strings are common too.
      const length = 4 * (1 + random(3)) + (random(4) === 0 ? random(3) : 0)
      let text = ''
      for (let j = 0; j < length; j++) text += random(5) === 0 ? alphabet[random(alphabet.length)] : alphabet[random(6)]
      if (random(3) === 0) text = text.slice(0, -random(3)) + '='.repeat(random(3))
      const expected = reference(text)
      if (expected) valid++
      if (isStandardBase64(text) !== expected) expect([text, isStandardBase64(text)]).toEqual([text, expected])
    }
    expect(valid).toBeGreaterThan(5_000)
  })

  test('a megabyte of base64 is checked whole: one wrong character at the end is found', () => {
    const text = Buffer.from(new Uint8Array(1_000_000).map((_, i) => i * 31)).toString('base64')
    expect(isStandardBase64(text)).toBe(true)
    expect(isStandardBase64(`${text.slice(0, -5)}*${text.slice(-4)}`)).toBe(false)
  })
})
