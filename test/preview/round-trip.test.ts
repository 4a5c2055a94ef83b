// The renderer's real output read back by the preview: the lines, their alignment and bold come
// back as the document asked, on every profile in the catalogue (ESC/POS and StarPRNT) at each
// paper width the model takes, and the bytes decode without a single warning.
import { describe, expect, test } from 'bun:test'
import { CODE_PAGES } from '../../src/preview/code-pages.ts'
import { type Block, decodeReceipt, type Receipt, receiptText } from '../../src/preview/preview.ts'
import { PROFILES } from '../../src/profiles/catalog.ts'
import type { PrinterProfile } from '../../src/profiles/profile.ts'
import type { PaperWidth, PrintDocument, Section } from '../../src/protocol/document.ts'
import { render, renderTarget } from '../../src/render/render.ts'
import { PNG_1X1 } from '../support/images.ts'
import { codeTablesOf } from '../../src/profiles/profile.ts'

const TARGETS = PROFILES.flatMap((profile) => profile.paperWidths.map((width) => ({ profile, width })))

/** What the printer makes of the document's bytes on this model. */
function printed(document: PrintDocument, profile: PrinterProfile): Receipt {
  const target = renderTarget(profile, document.width)
  return decodeReceipt(render(document, target), {
    dotsPerLine: target.dotsPerLine,
    commandSet: profile.commandSet,
    codeTables: codeTablesOf(profile),
  })
}

const textLines = (blocks: readonly Block[]) => blocks.filter((block) => block.kind === 'text')
const plain = (block: Block) => (block.kind === 'text' ? block.runs.map((run) => run.text).join('') : undefined)

const ONE_LINERS: Section[] = [
  { type: 'text', value: 'Café de la Gare', align: 'center', bold: true },
  { type: 'text', value: 'Größe 2 × 2,40 €', align: 'right' },
  { type: 'text', value: 'Zażółć gęślą jaźń', bold: true },
  { type: 'text', value: 'Şiş kebabı', align: 'center' },
  { type: 'text', value: 'Καλημέρα', align: 'right', bold: true },
  { type: 'text', value: 'Борщ', align: 'left' },
]

/**
 * True when every character of `text` prints as text on the model: ASCII, or in one of its code pages (by the preview's
 * own tables).
 */
function printsAsText(text: string, profile: PrinterProfile): boolean {
  return Array.from(text).every(
    (c) => (c >= ' ' && c <= '~') || profile.codePages.some(({ page }) => CODE_PAGES[page].includes(c)),
  )
}

describe.each(TARGETS)('$profile.id at $width mm', ({ profile, width }) => {
  const { columns, dotsPerLine } = profile.widths[width as PaperWidth]!
  const blocksOf = (section: Section) => {
    const receipt = printed({ width, sections: [section] }, profile)
    expect(receipt.warnings).toEqual([])
    return receipt.blocks
  }

  test(
    'each text section comes back as one line with its text, alignment and ' +
      'bold, or drawn when its pages lack a character',
    () => {
      for (const section of ONE_LINERS) {
        if (section.type !== 'text') throw new Error('text sections only')
        const blocks = blocksOf(section)
        if (printsAsText(section.value, profile)) {
          expect(blocks).toEqual([
            {
              kind: 'text',
              alignment: section.align ?? 'left',
              runs: [{ text: section.value, bold: section.bold ?? false }],
            },
          ])
        } else {
          // The renderer draws the whole line as a picture across the paper (in bands of the profile's rows).
          expect(blocks.length).toBeGreaterThan(0)
          for (const block of blocks)
            expect(block).toMatchObject({ kind: 'image', width: Math.floor(dotsPerLine / 8) * 8 })
        }
      }
    },
  )

  test('wrapped text, rows and dividers fit the line, and nothing is lost', () => {
    const long = 'Thank you for dining with us tonight; we hope to see you again very soon at the Café.'
    const sections: Section[] = [
      { type: 'text', value: long, align: 'center' },
      { type: 'row', left: 'Espresso doppio', right: '3,20 €' },
      { type: 'row', left: 'A dish with a name far too long to fit beside its price', right: '12,50 €' },
      { type: 'divider' },
    ]
    const receipt = printed({ width, sections }, profile)
    expect(receipt.warnings).toEqual([])
    const lines = textLines(receipt.blocks)
    for (const line of lines) expect(Array.from(plain(line)!).length).toBeLessThanOrEqual(columns)
    const wrapped = lines.filter((line) => line.alignment === 'center').map(plain)
    expect(wrapped.join(' ')).toBe(long)
    const text = receiptText(receipt, columns)
    const row = text.find((line) => line.startsWith('Espresso doppio'))!
    expect(row).toHaveLength(columns)
    expect(row.endsWith('3,20 €')).toBe(true)
    expect(text.some((line) => line.endsWith('12,50 €'))).toBe(true)
    expect(text.at(-1)).toBe('-'.repeat(columns))
    // Rows and dividers print left aligned and not bold.
    for (const line of lines.filter((line) => line.alignment !== 'center')) {
      expect(line.alignment).toBe('left')
      expect(line.runs.every((run) => !run.bold)).toBe(true)
    }
  })

  test('text no code page has comes back as a picture across the whole line', () => {
    const blocks = blocksOf({ type: 'text', value: '漢字 😀', align: 'right' })
    expect(blocks).toHaveLength(1)
    expect(blocks[0]).toMatchObject({ kind: 'image', width: Math.floor(dotsPerLine / 8) * 8 })
  })

  test('QR codes and barcodes print centred with the value; a model without a QR command gets a picture', () => {
    const url = 'https://example.com/r/42'
    const qr = blocksOf({ type: 'qr', value: url })
    if (profile.qr)
      expect(qr).toEqual([
        {
          kind: 'qr',
          alignment: 'center',
          data: new TextEncoder().encode(url),
          moduleDots: expect.any(Number),
          errorCorrection: 'M',
        },
      ])
    else for (const block of qr) expect(block).toMatchObject({ kind: 'image', alignment: 'center' })
    for (const format of profile.barcodes) {
      const value = { code128: 'AB-1234 5%', code39: 'ABC-123', ean13: '4006381333931', upca: '036000291452' }[format]
      expect(blocksOf({ type: 'barcode', format, value })).toEqual([
        expect.objectContaining({ kind: 'barcode', alignment: 'center', symbology: format, text: value, hri: 'below' }),
      ])
    }
  })

  test('feeds and the cut come back as the profile says', () => {
    const receipt = printed(
      { width, sections: [{ type: 'text', value: 'top' }, { type: 'feed', lines: 2 }, { type: 'cut' }] },
      profile,
    )
    expect(receipt.warnings).toEqual([])
    const cut: Block[] = profile.cut.kind === 'none' ? [] : [{ kind: 'cut', partial: profile.cut.kind === 'partial' }]
    const cutFeed: Block[] = profile.cut.feedLines > 0 ? [{ kind: 'feed', lines: profile.cut.feedLines }] : []
    expect(receipt.blocks.slice(1)).toEqual([{ kind: 'feed', lines: 2 }, ...cutFeed, ...cut])
  })

  test('an image comes back centred, its dots as wide as the picture', () => {
    const blocks = blocksOf({ type: 'image', mediaType: 'image/png', data: PNG_1X1 })
    expect(blocks).toEqual([
      { kind: 'image', alignment: 'center', width: 8, height: 1, widthBytes: 1, rows: expect.any(Uint8Array) },
    ])
  })
})
