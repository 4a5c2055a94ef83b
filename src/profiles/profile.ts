// What a printer profile (a file under printers/) says about a printer model, and the rule every
// profile file must pass. The renderer reads geometry, code pages, cut, raster and QR/barcode
// support from it; the transports read status support and serial defaults; detection reads the
// USB IDs.
import { BARCODE_FORMATS } from '../protocol/barcode.ts'
import { PAPER_WIDTHS, type PaperWidth } from '../protocol/document.ts'
import {
  array,
  boolean,
  type Infer,
  integer,
  nullable,
  object,
  oneOf,
  optional,
  refine,
  string,
  validate,
} from '../protocol/rules.ts'
import { SERIAL_BAUD_RATES, SERIAL_FLOW_CONTROLS } from '../domain/connection-uri.ts'

/** The code pages the renderer has tables for (see src/render/code-pages.ts). */
export const CODE_PAGE_NAMES = ['cp858', 'cp852', 'cp866', 'cp737', 'cp857'] as const
export type CodePageName = (typeof CODE_PAGE_NAMES)[number]

export const COMMAND_SETS = ['escpos', 'starprnt'] as const
export type CommandSetName = (typeof COMMAND_SETS)[number]

const geometry = object({
  /** Printable dots across the paper, at the model's resolution (203 dpi on most, 180 on some). */
  dotsPerLine: integer({ min: 128, max: 832 }),
  /** Characters per line in Font A (12 x 24 dots), the font text prints in. */
  columns: integer({ min: 16, max: 69 }),
  /** Characters per line in Font B (9 x 17 dots), for reference. */
  columnsFontB: integer({ min: 16, max: 92 }),
})

const hex4 = string({ min: 4, max: 4, pattern: /^[0-9a-f]{4}$/, patternHint: '4 lower-case hex digits' })

const profileFile = object({
  name: string({ min: 1, max: 80 }),
  vendor: string({ min: 1, max: 40 }),
  commandSet: oneOf(COMMAND_SETS),
  widths: object({ 58: optional(geometry), 80: optional(geometry) }),
  defaultWidth: oneOf(PAPER_WIDTHS),
  /** In order of preference; `table` is the number the model's select-code-page command takes. */
  codePages: array(object({ page: oneOf(CODE_PAGE_NAMES), table: integer({ min: 0, max: 255 }) }), {
    min: 1,
    max: CODE_PAGE_NAMES.length,
    unique: true,
  }),
  /** `none`: a tear bar, no cutter; `feedLines`: lines fed so the last printed line clears the cutter or tear bar. */
  cut: object({ kind: oneOf(['partial', 'full', 'none'] as const), feedLines: integer({ min: 0, max: 20 }) }),
  /**
   * What the model's text can do: magnification up to `maxSize` times in each direction, underline
   * (`none`, `single`, or `double` too), white on black, the small font B. Beyond it the renderer
   * degrades visibly (docs/document-extensions.md).
   */
  text: object({
    maxSize: integer({ min: 1, max: 8 }),
    underline: oneOf(['none', 'single', 'double'] as const),
    invert: boolean(),
    fontB: boolean(),
  }),
  drawer: nullable(object({ pins: array(oneOf([2, 5] as const), { min: 1, max: 2, unique: true }) })),
  buzzer: oneOf(['none', 'epson-optional', 'xprinter-esc-b', 'star-external'] as const),
  qr: boolean(),
  barcodes: array(oneOf(BARCODE_FORMATS), { max: BARCODE_FORMATS.length, unique: true }),
  /** Rows per raster block sent: the model's limit, or less for a small receive buffer. */
  raster: object({ maxBandRows: integer({ min: 8, max: 4_095 }) }),
  status: object({ realtime: boolean(), automaticStatusBack: boolean(), processIdResponse: boolean() }),
  serial: nullable(object({ baud: oneOf(SERIAL_BAUD_RATES), flow: oneOf(SERIAL_FLOW_CONTROLS) })),
  usb: array(object({ vendorId: hex4, productId: hex4 }), { max: 32, unique: true }),
})

const profileRule = refine(profileFile, (profile) => {
  const widths = PAPER_WIDTHS.filter((width) => profile.widths[width])
  if (widths.length === 0) return [{ path: 'widths', message: 'must name at least one paper width' }]
  if (!profile.widths[profile.defaultWidth])
    return [{ path: 'defaultWidth', message: `must be one of the widths (${widths.join(', ')})` }]
  return undefined
})

export type PrinterProfileFile = Infer<typeof profileFile>
export type PaperGeometry = Infer<typeof geometry>

export interface PrinterProfile extends PrinterProfileFile {
  /** The file name without `.json`: what printer records name. */
  readonly id: string
  /** The paper widths the model takes, narrowest first. */
  readonly paperWidths: readonly PaperWidth[]
}

/** A profile file checked against the rule; a broken file is a bug in the product, so it throws. */
export function parseProfile(id: string, data: unknown): PrinterProfile {
  const result = validate(profileRule, data)
  if (!result.ok)
    throw new Error(`printers/${id}.json: ${result.issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`)
  const file = result.value
  return Object.freeze({ id, ...file, paperWidths: PAPER_WIDTHS.filter((width) => file.widths[width]) })
}

/** The geometry of a paper width the profile takes. */
export function geometryOf(profile: PrinterProfile, width: PaperWidth): PaperGeometry | undefined {
  return profile.widths[width]
}

/** The model's code page numbers, as a reader of its bytes (the preview) needs them: `{ 19: 'cp858' }`. */
export function codeTablesOf(profile: PrinterProfile): Record<number, CodePageName> {
  return Object.fromEntries(profile.codePages.map(({ page, table }) => [table, page]))
}
