// Golden bytes of every section type, for every profile at every paper width it takes: any change
// in what a printer is sent shows up here, profile by profile. The files are written with
// `PRINTHUB_UPDATE_GOLDEN=1 bun test test/render/golden.test.ts` and read by a person before they
// are committed (the preview tests check what the bytes mean).
import { describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import type { Section } from '../../src/protocol/document.ts'
import { PROFILES } from '../../src/profiles/catalog.ts'
import { RenderError, render, renderTarget } from '../../src/render/render.ts'

/** A 16 x 4 black-and-white PNG (a logo). */
const LOGO = 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAECAAAAACi3+AwAAAAFUlEQVR4XmP4DwQMQACjwQBFkKAKADxAH+G4Xaj3AAAAAElFTkSuQmCC'

/** One document per section type, with the variants that choose different commands. */
const SECTION_CASES: Record<string, Section[]> = {
  text: [
    { type: 'text', value: 'Table 12\n\nThank you for visiting, see you soon' },
    { type: 'text', value: 'CAFÉ NORD', align: 'center', bold: true },
    { type: 'text', value: 'Total 12,50 €', align: 'right' },
    { type: 'text', value: 'Zażółć gęślą · Борщ · Καλημέρα · Şiş kebabı' },
    { type: 'text', value: '寿司 ☕ 😀', align: 'center' },
  ],
  row: [
    { type: 'row', left: '2 × Flat white', right: '7,00 €' },
    { type: 'row', left: 'Grilled halloumi with roasted vegetables and a side of chips', right: '13,50 €' },
  ],
  divider: [{ type: 'divider' }],
  feed: [{ type: 'feed', lines: 3 }],
  cut: [{ type: 'text', value: 'end' }, { type: 'cut' }],
  qr: [{ type: 'qr', value: 'https://example.com/r/42?sig=Zm9v' }],
  barcode: [
    { type: 'barcode', format: 'code128', value: 'ORDER-12345678' },
    { type: 'barcode', format: 'code39', value: 'TABLE-12' },
    { type: 'barcode', format: 'ean13', value: '4006381333931' },
    { type: 'barcode', format: 'upca', value: '036000291452' },
  ],
  image: [{ type: 'image', mediaType: 'image/png', data: LOGO }],
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const UPDATE = process.env.PRINTHUB_UPDATE_GOLDEN === '1'

describe('golden bytes per profile, width and section type', () => {
  for (const profile of PROFILES) {
    test(profile.id, () => {
      const file = new URL(`golden/${profile.id}.json`, import.meta.url).pathname
      const outputs: Record<string, Record<string, string>> = {}
      for (const width of profile.paperWidths) {
        const target = renderTarget(profile, width)
        outputs[width] = Object.fromEntries(
          Object.entries(SECTION_CASES).map(([type, sections]) => {
            try {
              return [type, hex(render({ width, sections }, target))]
            } catch (error) {
              // A section the model cannot print is part of its golden record too.
              if (error instanceof RenderError) return [type, `${error.code}: ${error.message}`]
              throw error
            }
          }),
        )
      }
      if (UPDATE) writeFileSync(file, `${JSON.stringify(outputs, null, 2)}\n`)
      expect(outputs).toEqual(JSON.parse(readFileSync(file, 'utf8')))
    })
  }
})
