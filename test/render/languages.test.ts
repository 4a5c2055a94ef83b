// A receipt in six languages against an independent oracle: the bytes are read back with glibc's
// iconv (not the tables the renderer was generated from), following every ESC t page switch.
import { describe, expect, test } from 'bun:test'
import { render } from '../../src/render/render.ts'
import { PROLOGUE, target } from './bytes.ts'

const LINES = [
  'Crème brûlée à la française, déjà payé',
  'Größe: 3 × Brötchen 2,40 €',
  'Zażółć gęślą jaźń',
  'Şiş kebabı, ağız, İstanbul',
  'Καλημέρα, ευχαριστώ',
  'Борщ, пельмени, спасибо',
]

/** Epson's ESC t numbers, as glibc names the pages. */
const EPSON_TABLES: Record<number, string> = { 19: 'CP858', 18: 'CP852', 17: 'CP866', 14: 'CP737', 13: 'CP857' }

function iconvToUtf8(bytes: number[], page: string): string {
  const result = Bun.spawnSync(['iconv', '-f', page, '-t', 'UTF-8'], { stdin: Uint8Array.from(bytes) })
  expect(result.exitCode).toBe(0)
  return result.stdout.toString()
}

/** The printed text of ESC/POS bytes that hold only text, line feeds and ESC t switches. */
function readBack(bytes: number[], table: number): { text: string; switches: number } {
  let text = ''
  let switches = 0
  let segment: number[] = []
  const flush = () => {
    text += iconvToUtf8(segment, EPSON_TABLES[table]!)
    segment = []
  }
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x1b && bytes[i + 1] === 0x74) {
      flush()
      table = bytes[i + 2]!
      switches++
      i += 2
    } else segment.push(bytes[i]!)
  }
  flush()
  return { text, switches }
}

describe('a receipt in French, German, Polish, Turkish, Greek and Russian', () => {
  test('reads back exactly, through the code page switches, at both widths', () => {
    for (const width of [58, 80] as const) {
      const output = Array.from(
        render({ width, sections: LINES.map((value) => ({ type: 'text', value })) }, target(width)),
      )
      expect(output.slice(0, PROLOGUE.length)).toEqual(PROLOGUE)
      const { text, switches } = readBack(output.slice(PROLOGUE.length), 19)
      // Wrapping turns some spaces into line breaks.
      expect(text.replaceAll('\n', ' ').trim()).toBe(LINES.join(' '))
      // One switch per language at most (French and German share PC858; Turkish may start in PC852).
      expect(switches).toBeLessThanOrEqual(5)
    }
  })

  test('each language in the page made for it', () => {
    const pages = LINES.map((value) => {
      const output = Array.from(render({ width: 80, sections: [{ type: 'text', value }] }, target(80)))
      const switches = output.flatMap((byte, i) =>
        byte === 0x1b && output[i + 1] === 0x74 && i >= PROLOGUE.length ? [output[i + 2]!] : [],
      )
      return switches.map((table) => EPSON_TABLES[table])
    })
    expect(pages).toEqual([[], [], ['CP852'], ['CP857'], ['CP737'], ['CP866']])
  })
})
