import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { findProfile, PROFILES } from '../../src/profiles/catalog.ts'
import { codeTablesOf, parseProfile } from '../../src/profiles/profile.ts'

const PRINTERS = new URL('../../printers/', import.meta.url).pathname
const generic = () => JSON.parse(readFileSync(`${PRINTERS}generic-80mm.json`, 'utf8'))

describe('printer profiles', () => {
  test('every file in printers/ is in the catalog and passes the rule', () => {
    const files = readdirSync(PRINTERS)
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -5))
    expect(PROFILES.map((p) => p.id).sort()).toEqual(files.sort())
    for (const id of files)
      expect(parseProfile(id, JSON.parse(readFileSync(`${PRINTERS}${id}.json`, 'utf8'))).id).toBe(id)
  })

  test('geometry fits: Font A columns of 12 dots within the printable dots', () => {
    for (const profile of PROFILES) {
      for (const width of profile.paperWidths) {
        const { columns, dotsPerLine } = profile.widths[width]!
        expect([profile.id, width, columns * 12 <= dotsPerLine]).toEqual([profile.id, width, true])
      }
    }
  })

  test('the code page numbers a reader of the bytes needs', () => {
    expect(codeTablesOf(findProfile('star-tsp143iv')!)).toEqual({
      4: 'cp858',
      5: 'cp852',
      10: 'cp866',
      15: 'cp737',
      12: 'cp857',
    })
    expect(codeTablesOf(findProfile('generic-58mm')!)).toEqual({
      19: 'cp858',
      18: 'cp852',
      17: 'cp866',
      14: 'cp737',
      13: 'cp857',
    })
  })

  test('a broken profile file is refused with every problem named', () => {
    const broken = {
      ...generic(),
      commandSet: 'zpl',
      defaultWidth: 58,
      codePages: [{ page: 'cp1252', table: 16 }],
      extra: true,
    }
    expect(() => parseProfile('broken', broken)).toThrow(
      'printers/broken.json: commandSet must be one of "escpos", "starprnt"; ' +
        'codePages[0].page must be one of "cp858", "cp852", "cp866", "cp737", ' +
        '"cp857"; extra is not an allowed field',
    )
    expect(() => parseProfile('nowidth', { ...generic(), widths: {} })).toThrow(
      'printers/nowidth.json: widths must name at least one paper width',
    )
    expect(() => parseProfile('default', { ...generic(), defaultWidth: 58 })).toThrow(
      'printers/default.json: defaultWidth must be one of the widths (80)',
    )
    expect(() => parseProfile('usb', { ...generic(), usb: [{ vendorId: '04B8', productId: '0e28' }] })).toThrow(
      'usb[0].vendorId must be 4 lower-case hex digits',
    )
    expect(() => parseProfile('bands', { ...generic(), raster: { maxBandRows: 5000 } })).toThrow(
      'raster.maxBandRows must be between 8 and 4095 (got 5000)',
    )
  })
})
