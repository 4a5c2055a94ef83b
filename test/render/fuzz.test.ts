// Random documents into the renderer, for every profile at every paper width it takes: each one
// renders or fails with a RenderError; nothing else ever escapes. Documents are those an agent can
// receive: shaped as the wire rule says (check digits, QR capacity and images are the renderer's to
// refuse), so broken images, bad barcodes and overlong QR values are among them.
import { describe, expect, test } from 'bun:test'
import { encode as encodePng } from 'fast-png'
import { encode as encodeJpeg } from 'jpeg-js'
import { BARCODE_FORMATS } from '../../src/protocol/barcode.ts'
import { type Section, wireDocumentRule } from '../../src/protocol/document.ts'
import { validate } from '../../src/protocol/rules.ts'
import { PROFILES } from '../../src/profiles/catalog.ts'
import { RenderError, render, renderTarget } from '../../src/render/render.ts'

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function generator(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  const int = (max: number) => Math.floor(next() * max)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!
  return { next, int, pick }
}

const CHARACTERS = [
  ...'abcXYZ019 .,-€$%{}*~',
  ...'éèçàüöäßñÑÉ€£',
  ...'łśżźćńąęŁŚŻ',
  ...'ğışçöüĞİŞ',
  ...'αβγδΩέήώ',
  ...'БорщЖЯё',
  ...'中文寿司漢字한국어ｶﾀｶﾅ',
  '😀',
  '☕',
  '👨',
  '🍳',
  '\u200d',
  '\ufe0f',
  '\u0301',
  '\u00a0',
  '\u00ad',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
]
/** Characters nothing can print: controls, private use, lone surrogates; rare, so most documents still print. */
const UNPRINTABLE = ['\u0000', '\u0007', '\u001b', '\u007f', '\u0085', '\ue000', '\ud800', '\udfff', '\uffff']

function fuzzDocument(seed: number): unknown {
  const random = generator(seed)
  const text = (max: number) =>
    Array.from({ length: random.int(max) }, () => random.pick(random.next() < 0.003 ? UNPRINTABLE : CHARACTERS)).join(
      '',
    )
  const ascii = (max: number) =>
    Array.from({ length: 1 + random.int(max) }, () => String.fromCharCode(0x20 + random.int(0x5f))).join('')
  const pixels = (w: number, h: number) => Uint8Array.from({ length: w * h * 4 }, () => random.int(256))
  const image = (): Section => {
    const w = 1 + random.int(700)
    const h = 1 + random.int(80)
    const png = () => encodePng({ width: w, height: h, data: pixels(w, h), channels: 4, depth: 8 })
    const jpeg = () => encodeJpeg({ width: w, height: h, data: pixels(w, h) }, 70).data
    const variants: ['image/png' | 'image/jpeg', () => Uint8Array][] = [
      ['image/png', png],
      ['image/jpeg', jpeg],
      ['image/png', () => png().slice(0, 40 + random.int(200))],
      ['image/jpeg', () => jpeg().slice(0, 100 + random.int(300))],
      [
        'image/png',
        () =>
          Uint8Array.from([...png().slice(0, 33), ...Array.from({ length: random.int(500) }, () => random.int(256))]),
      ],
    ]
    const [mediaType, bytes] = random.pick(variants)
    return { type: 'image', mediaType, data: Buffer.from(bytes()).toString('base64') }
  }
  const sections: (() => Section)[] = [
    () => ({
      type: 'text',
      value: text(120),
      align: random.pick(['left', 'center', 'right'] as const),
      bold: random.next() < 0.5,
    }),
    () => ({ type: 'row', left: text(60), right: text(20) }),
    () => ({ type: 'divider' }),
    () => ({ type: 'feed', lines: 1 + random.int(255) }),
    () => ({ type: 'cut' }),
    () => ({ type: 'qr', value: random.next() < 0.1 ? 'é'.repeat(1000 + random.int(1500)) : text(200) || 'x' }),
    () => ({
      type: 'barcode',
      format: random.pick(BARCODE_FORMATS),
      value: random.next() < 0.5 ? String(random.int(1e12)).padStart(12, '0') : ascii(30),
    }),
    image,
  ]
  return {
    width: random.pick([58, 80]),
    sections: Array.from({ length: 1 + random.int(12) }, () => random.pick(sections)()),
  }
}

describe('renderer fuzzing', () => {
  test('300 random documents on every profile and paper width: bytes or a RenderError, never a crash', () => {
    const outcomes = new Map<string, number>()
    for (let seed = 1; seed <= 300; seed++) {
      const document = fuzzDocument(seed)
      const checked = validate(wireDocumentRule, document)
      if (!checked.ok) continue
      for (const profile of PROFILES) {
        for (const width of profile.paperWidths) {
          let outcome: string
          try {
            const bytes = render(checked.value, renderTarget(profile, width))
            expect(bytes[0]).toBe(0x1b)
            outcome = 'rendered'
          } catch (error) {
            if (!(error instanceof RenderError)) throw new Error(`seed ${seed}, ${profile.id} at ${width} mm: ${error}`)
            expect(error.message).toStartWith('sections[')
            outcome = error.code
          }
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
        }
      }
    }
    // The generator reaches both outcomes and the main refusals, or it tests too little.
    expect(outcomes.get('rendered')).toBeGreaterThan(50)
    for (const code of [
      'render.unsupported_character',
      'render.image_invalid',
      'render.barcode_invalid',
      'render.qr_too_long',
    ])
      expect([code, outcomes.get(code) ?? 0]).not.toEqual([code, 0])
  }, 120_000)
})
