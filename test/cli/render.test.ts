// `printhub render`: a document file to a text preview, a PNG and the printer's bytes, as a
// technician runs it (from the sources, or the executable under `npm run test:binary`).
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decode } from 'fast-png'
import { cli, cliJson } from '../support/cli.ts'

const directory = mkdtempSync(join(tmpdir(), 'printhub-render-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

function file(name: string, content: unknown): string {
  const path = join(directory, name)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

const RECEIPT = {
  width: 80,
  sections: [
    { type: 'text', value: 'Café Nord', align: 'center', bold: true },
    { type: 'row', left: '2 × Flat white', right: '7,00 €' },
    { type: 'text', value: '寿司 😀' },
    { type: 'qr', value: 'https://example.com/r/42' },
    { type: 'barcode', format: 'code128', value: 'ORDER-42' },
    { type: 'cut' },
  ],
}

describe('printhub render', () => {
  test('prints the preview as text, and writes the PNG and the bytes', async () => {
    const png = join(directory, 'receipt.png')
    const escpos = join(directory, 'receipt.bin')
    const result = await cli(['render', file('receipt.json', RECEIPT), '--png', png, '--escpos', escpos])
    expect(result.code).toBe(0)
    const lines = result.stdout.split('\n')
    expect(lines).toContain(`${' '.repeat(19)}Café Nord`)
    expect(lines).toContain(`2 × Flat white${' '.repeat(28)}7,00 €`)
    expect(lines).toContain('[image 576x30]')
    expect(lines).toContain('[QR: https://example.com/r/42]')
    expect(lines).toContain('[barcode code128: ORDER-42]')
    expect(lines).toContain('[partial cut]')
    const bytes = readFileSync(escpos)
    expect(lines.at(-2)).toBe(`${bytes.length} bytes for Generic 80 mm ESC/POS printer, 80 mm`)
    expect([...bytes.subarray(0, 2)]).toEqual([0x1b, 0x40])
    const picture = decode(readFileSync(png))
    expect(picture.width).toBe(576)
    expect(picture.height).toBeGreaterThan(300)
  })

  test('another profile and width; a job request file works too; --json for scripts', async () => {
    const path = file('job.json', { printerId: 'bar', idempotencyKey: 'k1', document: RECEIPT })
    const star = await cliJson(['render', path, '--profile', 'star-tsp143iv', '--width', '58'])
    expect(star).toMatchObject({ profile: 'star-tsp143iv', width: 58, warnings: [] })
    expect(star.text).toContain('[QR: https://example.com/r/42]')
    const tm = await cliJson(['render', path, '--profile', 'epson-tm-t88vi'])
    expect(tm.text[0]).toBe(`${' '.repeat(16)}Café Nord`)
  })

  test(
    "printhub's extensions: large, underlined and inverted text and font B " +
      'drawn as printed, the drawer noted, a buzzer the model lacks left ' +
      'out and said',
    async () => {
      const png = join(directory, 'styled.png')
      const styled = {
        width: 80,
        sections: [
          { type: 'text', value: 'Table 12', size: { width: 2, height: 2 }, align: 'center' },
          { type: 'text', value: 'NO NUTS', invert: true, underline: 'single', font: 'b' },
          { type: 'drawer', pin: 2 },
          { type: 'buzzer', times: 2 },
          { type: 'cut' },
        ],
      }
      const result = await cli(['render', file('styled.json', styled), '--png', png])
      expect(result.code).toBe(0)
      const lines = result.stdout.split('\n')
      // Centred in columns of the magnified width (48 columns, 8 characters 2 wide).
      expect(lines).toContain(`${' '.repeat(16)}Table 12`)
      expect(lines).toContain('NO NUTS')
      expect(lines).toContain('[drawer: pin 2]')
      expect(result.stderr).toContain(
        'left out: sections[3]: the printer model generic-80mm has no buzzer: the section is left out',
      )
      // The magnified line is three lines tall in the picture, the others one.
      expect(decode(readFileSync(png)).height).toBeGreaterThan(2 * 24 + 30)
      const json = await cliJson(['render', file('styled.json', styled)])
      expect(json.leftOut).toEqual([
        'sections[3]: the printer model generic-80mm has no buzzer: the section is left out',
      ])
      expect(json.warnings).toEqual([])
    },
  )

  test('bad input: a clear message and a non-zero exit, nothing written', async () => {
    const png = join(directory, 'never.png')
    const invalid = await cli(['render', file('bad.json', { width: 70, sections: [] }), '--png', png])
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toContain('the document is not valid:')
    expect(invalid.stderr).toContain('width: must be one of 58, 80')
    expect(() => readFileSync(png)).toThrow()
    const notJson = await cli(['render', file('bad.txt', 'not json')])
    expect(notJson.code).toBe(1)
    expect(notJson.stderr).toContain('is not JSON')
    const missing = await cli(['render', join(directory, 'missing.json')])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('cannot read')
    expect(missing.stderr).toContain('ENOENT')
    const unknownProfile = await cli(['render', file('ok.json', RECEIPT), '--profile', 'nope'])
    expect(unknownProfile.code).toBe(2)
    expect(unknownProfile.stderr).toContain('--profile must be one of generic-80mm')
    const wrongWidth = await cli(['render', file('ok.json', RECEIPT), '--profile', 'generic-58mm', '--width', '80'])
    expect(wrongWidth.code).toBe(1)
    expect(wrongWidth.stderr).toContain('render.width_unsupported')
    expect((await cli(['render', file('ok.json', RECEIPT), '--width', '70'])).code).toBe(2)
    expect((await cli(['render'])).code).toBe(2)
  })
})
