// A document with printhub's extensions made into OpenPrinter v1's sections for an agent that is
// not printhub (render/standard-document.ts): styled text as pictures that fit the printer's paper
// and OpenPrinter's image limits; the rest as it was; what no picture can carry named.
import { describe, expect, test } from 'bun:test'
import { findProfile } from '../../src/profiles/catalog.ts'
import { type PrintDocument, wireDocumentRule } from '../../src/protocol/document.ts'
import { MAX_IMAGE_SIDE } from '../../src/protocol/image.ts'
import { validate } from '../../src/protocol/rules.ts'
import { standardDocument } from '../../src/render/standard-document.ts'

const epson = findProfile('epson-tm-t20iii')!
const size = (data: string) => {
  const bytes = Buffer.from(data, 'base64')
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

describe('a document for an agent that is not printhub', () => {
  test('without extensions it is the document itself', () => {
    const document: PrintDocument = {
      width: 80,
      sections: [{ type: 'text', value: 'x', bold: true, align: 'center' }, { type: 'cut' }],
    }
    expect(standardDocument(document, epson)).toEqual({ document })
  })

  test(
    "styled text becomes pictures as wide as the model's paper, split to stay " +
      "within OpenPrinter's image limit; the result passes the OpenPrinter rule",
    () => {
      const long = 'WORD '.repeat(400)
      const made = standardDocument(
        {
          width: 58,
          sections: [
            { type: 'text', value: long, size: { width: 8, height: 8 } },
            { type: 'row', left: 'a', right: 'b', bold: true },
          ],
        },
        epson,
      )
      if (!('document' in made)) throw new Error('refused')
      const images = made.document.sections.filter((section) => section.type === 'image') as { data: string }[]
      expect(images.length).toBeGreaterThan(2)
      for (const image of images) {
        const { width, height } = size(image.data)
        expect(width).toBe(Math.floor(epson.widths[58]!.dotsPerLine / 8) * 8)
        expect(height).toBeLessThanOrEqual(MAX_IMAGE_SIDE)
      }
      expect(validate(wireDocumentRule, made.document).ok).toBe(true)
    },
  )

  test('the drawer and the buzzer are named; so is a character no picture can draw', () => {
    expect(
      standardDocument(
        {
          width: 80,
          sections: [
            { type: 'text', value: 'x', invert: true },
            { type: 'buzzer', times: 1 },
          ],
        },
        epson,
      ),
    ).toEqual({
      refused: [
        {
          path: 'sections[1].type',
          message: 'is a printhub extension (the buzzer section) that OpenPrinter v1 does not have',
        },
      ],
    })
    expect(
      standardDocument({ width: 80, sections: [{ type: 'text', value: 'a\u0001b', invert: true }] }, epson),
    ).toEqual({
      refused: [{ path: 'sections[0]', message: 'has a character the font pictures are drawn with lacks' }],
    })
  })
})
