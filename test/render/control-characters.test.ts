// The document's rule and the renderer agree on every control character: what the hub and the
// client library accept in printed text prints on every model, and what they refuse is exactly what
// would fail the job with `render.unsupported_character`.
import { describe, expect, test } from 'bun:test'
import { documentRule, type PaperWidth, type Section } from '../../src/protocol/document.ts'
import { validate } from '../../src/protocol/rules.ts'
import { PROFILES } from '../../src/profiles/catalog.ts'
import { RenderError, render, renderTarget } from '../../src/render/render.ts'
import { standardDocument } from '../../src/render/standard-document.ts'

const hex = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`

/** Each printed text field of the document, holding `text` between two words. */
const PRINTED_FIELDS: [string, (text: string) => Section][] = [
  ['value', (text) => ({ type: 'text', value: `Table${text}12` })],
  ['left', (text) => ({ type: 'row', left: `Flat${text}white`, right: '3.50' })],
  ['right', (text) => ({ type: 'row', left: 'Total', right: `12${text}50` })],
]

/** Why rendering the section fails, or undefined when it prints. */
function renderFailure(section: Section, width: PaperWidth, profile: (typeof PROFILES)[number]): string | undefined {
  try {
    render({ width, sections: [section] }, renderTarget(profile, width))
    return undefined
  } catch (error) {
    if (error instanceof RenderError) return error.code
    throw error
  }
}

describe('control characters: validation and rendering agree', () => {
  test('every code point U+0000 to U+009F, in every printed field, on every model and paper width', () => {
    const refused: string[] = []
    for (let codePoint = 0; codePoint <= 0x9f; codePoint++) {
      const character = String.fromCharCode(codePoint)
      for (const [field, section] of PRINTED_FIELDS) {
        const checked = validate(documentRule, { width: 80, sections: [section(character)] })
        const where = `${hex(codePoint)} in ${field}`
        if (!checked.ok) {
          refused.push(hex(codePoint))
          expect(checked.issues, where).toEqual([
            {
              path: `sections[0].${field}`,
              message: expect.stringContaining(`control character ${hex(codePoint)} at index `),
            },
          ])
        }
        for (const profile of PROFILES) {
          for (const width of profile.paperWidths) {
            const failure = renderFailure(section(character), width, profile)
            expect([where, profile.id, width, failure], 'rendering fails exactly where validation refuses').toEqual([
              where,
              profile.id,
              width,
              checked.ok ? undefined : 'render.unsupported_character',
            ])
          }
        }
        // Drawn as pictures for an agent that is not printhub (a styled line): the same characters fail.
        const styled = { ...section(character), size: { width: 2, height: 1 } } as Section
        const drawn = standardDocument({ width: 80, sections: [styled] }, PROFILES[0]!)
        expect(['refused' in drawn, where]).toEqual([!checked.ok, where])
      }
    }
    // The set itself, so a change to either side is seen: C0 but tab, LF, VT, FF and CR; DEL; C1.
    const expected = [
      ...Array.from({ length: 0xa0 }, (_, i) => i).filter((i) => (i < 0x20 && (i < 0x09 || i > 0x0d)) || i >= 0x7f),
    ].map(hex)
    expect([...new Set(refused)]).toEqual(expected)
  })

  test('a QR value is data: any control character is accepted and prints', () => {
    for (let codePoint = 0; codePoint <= 0x9f; codePoint++) {
      const section: Section = { type: 'qr', value: `GS1${String.fromCharCode(codePoint)}0104012345678901` }
      expect(validate(documentRule, { width: 80, sections: [section] }).ok).toBe(true)
      expect(renderFailure(section, 80, PROFILES[0]!)).toBeUndefined()
    }
  })
})
