// printhub's document extensions rendered for real models, checked through the bytes and read back
// by the preview as the printer would read them: magnified, underlined, inverted text and font B,
// in text and rows, wrapped for their width; the drawer and the buzzer; and each degradation for a
// model that lacks a feature.
import { describe, expect, test } from 'bun:test'
import { findProfile, PROFILES } from '../../src/profiles/catalog.ts'
import { parseProfile, type PrinterProfile } from '../../src/profiles/profile.ts'
import type { PaperWidth, Section } from '../../src/protocol/document.ts'
import { previewFor } from '../../src/preview/printer-preview.ts'
import type { Block, TextLine } from '../../src/preview/receipt.ts'
import { renderTarget, renderWithWarnings } from '../../src/render/render.ts'
import { bytes, ESC, GS } from './bytes.ts'

function run(sections: Section[], profile: PrinterProfile, width: PaperWidth = profile.defaultWidth) {
  const rendered = renderWithWarnings({ width, sections }, renderTarget(profile, width))
  return { ...rendered, preview: previewFor(rendered.bytes, profile, width) }
}

const profile = (id: string) => findProfile(id)!
const textLines = (blocks: readonly Block[]) => blocks.filter((b): b is TextLine => b.kind === 'text')
const contains = (haystack: Uint8Array, needle: number[]) => Buffer.from(haystack).includes(Buffer.from(needle))

/** A model like `base` that can do none of the text extensions. */
function plainModel(base: PrinterProfile): PrinterProfile {
  const { id, paperWidths, ...file } = structuredClone(base)
  return parseProfile(`${id}-plain`, { ...file, text: { maxSize: 1, underline: 'none', invert: false, fontB: false } })
}

describe('text styles on every model and width', () => {
  for (const model of PROFILES) {
    for (const width of model.paperWidths) {
      const geometry = model.widths[width]!
      test(
        `${model.id} at ${width} mm: size, underline, invert and font come back ` + `as asked, wrapped for their width`,
        () => {
          const size = Math.min(2, model.text.maxSize)
          const { preview, warnings } = run(
            [
              {
                type: 'text',
                value: 'x'.repeat(geometry.columns),
                size: { width: size, height: size },
                underline: 'single',
                invert: true,
                bold: true,
              },
              { type: 'text', value: 'y'.repeat(geometry.columnsFontB), font: 'b' },
              { type: 'row', left: 'Total', right: '12.50', size: { width: size, height: 1 } },
              { type: 'text', value: 'plain' },
            ],
            model,
            width,
          )
          expect(warnings).toEqual([])
          const lines = textLines(preview.receipt.blocks)
          const perLine = Math.floor(geometry.columns / size)
          // The magnified text wraps at the columns over the magnification, nothing lost.
          const big = lines.filter((line) => line.runs[0]?.text.startsWith('x'))
          expect(big.map((line) => line.runs.map((r) => r.text).join('')).join('')).toBe('x'.repeat(geometry.columns))
          expect(big[0]!.runs[0]).toEqual({
            text: 'x'.repeat(perLine),
            bold: true,
            ...(size > 1 ? { size: { width: size, height: size } } : {}),
            underline: 1,
            invert: true,
          })
          const small = lines.find((line) => line.runs[0]?.text.startsWith('y'))!
          expect(small.runs).toEqual([{ text: 'y'.repeat(geometry.columnsFontB), bold: false, font: 'b' }])
          const total = lines.find((line) => line.runs[0]?.text.startsWith('Total'))!
          expect(total.runs[0]!.text).toBe(`Total${' '.repeat(Math.floor(geometry.columns / size) - 10)}12.50`)
          // And the printer is left in plain text.
          expect(lines.at(-1)!.runs).toEqual([{ text: 'plain', bold: false }])
          expect(preview.receipt.warnings).toEqual([])
        },
      )
    }
  }
})

describe('text style commands', () => {
  test(
    'ESC/POS: GS ! for the size, ESC - for the underline, GS B for white on ' +
      'black, ESC M for the font; each reset after',
    () => {
      const { bytes: out } = run(
        [{ type: 'text', value: 'A', size: { width: 3, height: 2 }, underline: 'double', invert: true, font: 'b' }],
        profile('epson-tm-t20iii'),
      )
      expect(Array.from(out.subarray(5))).toEqual(
        bytes(
          GS,
          '!',
          0x21,
          ESC,
          '-',
          2,
          GS,
          'B',
          1,
          ESC,
          'M',
          1,
          'A',
          0x0a,
          GS,
          '!',
          0,
          ESC,
          '-',
          0,
          GS,
          'B',
          0,
          ESC,
          'M',
          0,
        ),
      )
    },
  )

  test(
    'StarPRNT: ESC i for the size (height first), ESC - for the underline ' +
      '(one thickness), ESC 4 and ESC 5, ESC RS F',
    () => {
      const { bytes: out, preview } = run(
        [{ type: 'text', value: 'A', size: { width: 3, height: 2 }, underline: 'double', invert: true, font: 'b' }],
        profile('star-tsp143iv'),
      )
      expect(contains(out, bytes(ESC, 'i', 1, 2, ESC, '-', 1, ESC, '4', ESC, 0x1e, 'F', 1, 'A'))).toBe(true)
      expect(textLines(preview.receipt.blocks)[0]!.runs).toEqual([
        { text: 'A', bold: false, size: { width: 3, height: 2 }, underline: 1, invert: true, font: 'b' },
      ])
    },
  )
})

describe('degraded where the model cannot', () => {
  test('magnified past the model (Star: 6) is drawn as a picture of the line at that size', () => {
    const { preview, bytes: out } = run(
      [{ type: 'text', value: 'Table 12', size: { width: 8, height: 8 } }],
      profile('star-tsp143iv'),
    )
    const [image] = preview.receipt.blocks
    expect(image).toMatchObject({ kind: 'image', height: 16 * 1.5 * 8 + 6 })
    expect(contains(out, bytes(ESC, 'i'))).toBe(false)
  })

  test(
    'white on black and an underline the model lacks are drawn; font B it ' +
      'lacks prints in font A; double underline where only single ' +
      'exists is single',
    () => {
      const model = plainModel(profile('epson-tm-t20iii'))
      const inverted = run([{ type: 'text', value: 'NOTE', invert: true }], model)
      expect(inverted.preview.receipt.blocks[0]).toMatchObject({ kind: 'image' })
      // White on black: most dots of the line's box are black.
      const image = inverted.preview.receipt.blocks[0] as Extract<Block, { kind: 'image' }>
      const black = Array.from(image.rows).reduce((sum, byte) => sum + (byte.toString(2).match(/1/g)?.length ?? 0), 0)
      expect(black).toBeGreaterThan(4 * 12 * image.height * 0.6)
      expect(run([{ type: 'text', value: 'ok', underline: 'single' }], model).preview.receipt.blocks[0]).toMatchObject({
        kind: 'image',
      })
      const fontB = run([{ type: 'text', value: 'y'.repeat(60), font: 'b' }], model)
      expect(textLines(fontB.preview.receipt.blocks).map((line) => line.runs[0]!.text.length)).toEqual([48, 12])
      const star = run([{ type: 'text', value: 'u', underline: 'double' }], profile('star-tsp143iv'))
      expect(textLines(star.preview.receipt.blocks)[0]!.runs[0]).toMatchObject({ underline: 1 })
    },
  )

  test(
    'text no code page has, in font B: drawn in font B cells (9 x 17), so a ' + 'full line of them fits the paper',
    () => {
      const model = profile('epson-tm-t20iii')
      const { preview } = run([{ type: 'text', value: '寿'.repeat(40), font: 'b' }], model)
      const images = preview.receipt.blocks.filter((b): b is Extract<Block, { kind: 'image' }> => b.kind === 'image')
      // 64 font B columns hold 32 wide characters: two lines, each drawn 17 dots tall.
      expect(images.map((image) => image.height)).toEqual([17 + 6, 17 + 6])
      const rightmost = (image: Extract<Block, { kind: 'image' }>) => {
        let last = -1
        for (let y = 0; y < image.height; y++)
          for (let x = 0; x < image.width; x++)
            if (image.rows[y * image.widthBytes + (x >> 3)]! & (0x80 >> (x & 7))) last = Math.max(last, x)
        return last
      }
      expect(rightmost(images[0]!)).toBeGreaterThan(32 * 18 - 20)
      expect(rightmost(images[0]!)).toBeLessThan(576)
    },
  )

  test('text no code page has, magnified: drawn at that size too', () => {
    const { preview } = run(
      [{ type: 'text', value: '日本', size: { width: 2, height: 2 } }],
      profile('epson-tm-t20iii'),
    )
    expect(preview.receipt.blocks[0]).toMatchObject({ kind: 'image', height: 16 * 1.5 * 2 + 6 })
  })
})

describe('the drawer and the buzzer', () => {
  test('ESC p on pin 2 (100 ms on, 500 ms off by default) or 5; StarPRNT ESC BEL then BEL or SUB', () => {
    const epson = run(
      [
        { type: 'drawer', pin: 2 },
        { type: 'drawer', pin: 5, onMs: 50, offMs: 50 },
      ],
      profile('epson-tm-t20iii'),
    )
    expect(Array.from(epson.bytes.subarray(5))).toEqual(bytes(ESC, 'p', 0, 50, 250, ESC, 'p', 1, 25, 25))
    expect(epson.preview.receipt.blocks).toEqual([
      { kind: 'pulse', pin: 2, onMs: 100, offMs: 500 },
      { kind: 'pulse', pin: 5, onMs: 50, offMs: 50 },
    ])
    const star = run([{ type: 'drawer', pin: 5 }], profile('star-tsp143iv'))
    expect(star.preview.receipt.blocks).toEqual([{ kind: 'pulse', pin: 5, onMs: 100, offMs: 500 }])
  })

  test('a model without a drawer connector leaves the drawer out and says so', () => {
    const model = PROFILES.find((p) => p.drawer === null)!
    const {
      bytes: out,
      warnings,
      preview,
    } = run(
      [
        { type: 'text', value: 'x' },
        { type: 'drawer', pin: 2 },
      ],
      model,
    )
    expect(warnings).toEqual([
      `sections[1]: the printer model ${model.id} has no cash drawer connector ` +
        `with pin 2: the section is left out, the drawer stays shut`,
    ])
    expect(contains(out, bytes(ESC, 'p'))).toBe(false)
    expect(preview.receipt.blocks.some((b) => b.kind === 'pulse')).toBe(false)
  })

  test(
    "each kind of buzzer gets its model's command, read back as the beeps " +
      'asked for; a model without one beeps not, with a warning',
    () => {
      for (const kind of ['epson-optional', 'xprinter-esc-b', 'star-external'] as const) {
        // Every kind, on a model of its command language, whether or not a shipped profile has it yet.
        const base = profile(kind === 'star-external' ? 'star-tsp143iv' : 'epson-tm-t20iii')
        const { id, paperWidths, ...file } = structuredClone(base)
        const model = parseProfile(`${id}-${kind}`, { ...file, buzzer: kind })
        expect({
          kind,
          blocks: run([{ type: 'buzzer', times: 3, durationMs: 200 }], model).preview.receipt.blocks,
        }).toEqual({ kind, blocks: [{ kind: 'beep', times: 3, durationMs: 200 }] })
      }
      expect(run([{ type: 'buzzer', times: 2 }], profile('epson-tm-t20iii')).preview.receipt.blocks).toEqual([
        { kind: 'beep', times: 2, durationMs: 200 },
      ])
      const silent = PROFILES.find((p) => p.buzzer === 'none')!
      const { warnings, bytes: out } = run([{ type: 'buzzer', times: 3 }], silent)
      expect(warnings).toEqual([`sections[0]: the printer model ${silent.id} has no buzzer: the section is left out`])
      expect(out.length).toBe(run([], silent).bytes.length)
    },
  )
})

describe('the preview picture', () => {
  test('magnified text is taller, white on black is a black box, underline is a line under the text', () => {
    const model = profile('epson-tm-t20iii')
    const height = (sections: Section[]) => {
      const png = run(sections, model).preview.png()
      return new DataView(png.buffer, png.byteOffset).getUint32(20)
    }
    expect(height([{ type: 'text', value: 'A', size: { width: 2, height: 3 } }])).toBe(3 * 24 + 6)
    expect(height([{ type: 'text', value: 'A' }])).toBe(30)
  })
})

describe('a logo section on its own', () => {
  test('is refused by the renderer, naming the logo: only the hub, which stores the image, can print it', () => {
    expect(() => run([{ type: 'logo', name: 'cafe-logo' }], profile('epson-tm-t20iii'))).toThrow(
      'sections[0]: the logo "cafe-logo" is an image stored on the hub; it ' +
        'prints in jobs the hub takes, not on its own',
    )
  })
})
