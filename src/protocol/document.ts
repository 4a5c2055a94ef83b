// The print document (OpenPrinter v1 section 5) with printhub's extensions (text size, underline,
// invert and font; the drawer and buzzer sections): the one definition the API, the agent and the
// client library validate against.
import { BARCODE_FORMATS, barcodeProblem } from './barcode.ts'
import { documentCostProblems } from './document-cost.ts'
import { imageShapeRule, printableImageRule } from './image.ts'
import {
  MAX_BARCODE_LENGTH,
  MAX_FEED_LINES,
  MAX_QR_BYTES,
  MAX_QR_LENGTH,
  MAX_ROW_SIDE_LENGTH,
  MAX_SECTIONS,
  MAX_TEXT_LENGTH,
} from './limits.ts'
import {
  array,
  boolean,
  type Infer,
  integer,
  type Issue,
  object,
  oneOf,
  optional,
  refine,
  type Rule,
  string,
  tagged,
} from './rules.ts'
import { imageName } from './project-images.ts'

export const PAPER_WIDTHS = [58, 80] as const
export const TEXT_ALIGNMENTS = ['left', 'center', 'right'] as const
export const UNDERLINES = ['single', 'double'] as const
export const FONTS = ['a', 'b'] as const
/** Character magnification: 1 to 8 times as wide, 1 to 8 times as tall. */
export const MAX_TEXT_SIZE = 8
export const DRAWER_PINS = [2, 5] as const
/** The drawer's pulse, in ms: on, then off (ESC/POS counts in 2 ms steps up to 510 ms). */
export const DRAWER_PULSE_MS = { min: 2, max: 510, on: 100, off: 500 } as const
export const MAX_BUZZER_TIMES = 9
/** One beep's length, in ms. */
export const BUZZER_DURATION_MS = { min: 100, max: 2_000, default: 200 } as const

/**
 * How text prints, beyond OpenPrinter v1's alignment and bold (printhub extensions, see
 * docs/document-extensions.md): magnified, underlined, white on black, in the small font.
 */
const textStyle = {
  bold: optional(boolean()),
  size: optional(
    object({ width: integer({ min: 1, max: MAX_TEXT_SIZE }), height: integer({ min: 1, max: MAX_TEXT_SIZE }) }),
  ),
  underline: optional(oneOf(UNDERLINES)),
  invert: optional(boolean()),
  font: optional(oneOf(FONTS)),
}
/** The fields and sections OpenPrinter v1 does not have: printhub's own agents print them. */
export const TEXT_STYLE_EXTENSIONS = ['size', 'underline', 'invert', 'font'] as const
const ROW_EXTENSIONS = ['bold', ...TEXT_STYLE_EXTENSIONS] as const
export const SECTION_EXTENSIONS = ['drawer', 'buzzer', 'logo'] as const

const utf8 = new TextEncoder()

/**
 * The control characters printed text may hold, as the renderer reads them: a line feed ends a
 * line; tab, vertical tab, form feed and carriage return separate words as a space does. Every
 * other one (C0, DEL and C1, ESC among them) has nothing to print and would fail the job with
 * `render.unsupported_character`, so text and rows refuse it. QR and barcode values are data,
 * not printed text: a QR code carries any character, a barcode's rule allows printable ASCII.
 */
const UNPRINTABLE_CONTROL = /[\u0000-\u0008\u000E-\u001F\u007F-\u009F]/

/**
 * What is wrong with printing `text` (the first control character the printer cannot print, by code point), or
 * undefined.
 */
function controlCharacterProblem(text: string): string | undefined {
  const found = UNPRINTABLE_CONTROL.exec(text)
  if (!found) return undefined
  const codePoint = `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`
  return (
    `has the control character ${codePoint} at index ${found.index}, which ` +
    `cannot be printed (of the control characters only line feed, tab, ` +
    `vertical tab, form feed and carriage return are allowed)`
  )
}

/**
 * The document rule, with or without the checks that a document will print: check digits, QR
 * capacity, real images. OpenPrinter's schema leaves those to the renderer, so frames are decoded
 * without them; the hub's API and the client library refuse such a document at once.
 */
function documentRuleOf(printable: boolean) {
  const andPrintable = <T>(rule: Rule<T>, check: (value: T) => string | Issue[] | undefined): Rule<T> =>
    printable ? refine(rule, check) : rule
  const printedText = (max: number) => andPrintable(string({ max }), controlCharacterProblem)
  const section = tagged('type', {
    text: object({
      value: printedText(MAX_TEXT_LENGTH),
      align: optional(oneOf(TEXT_ALIGNMENTS)),
      ...textStyle,
    }),
    row: object({ left: printedText(MAX_ROW_SIDE_LENGTH), right: printedText(MAX_ROW_SIDE_LENGTH), ...textStyle }),
    divider: object({}),
    feed: object({ lines: integer({ min: 1, max: MAX_FEED_LINES }) }),
    cut: object({}),
    drawer: object({
      pin: oneOf(DRAWER_PINS),
      onMs: optional(integer({ min: DRAWER_PULSE_MS.min, max: DRAWER_PULSE_MS.max })),
      offMs: optional(integer({ min: DRAWER_PULSE_MS.min, max: DRAWER_PULSE_MS.max })),
    }),
    buzzer: object({
      times: integer({ min: 1, max: MAX_BUZZER_TIMES }),
      durationMs: optional(integer({ min: BUZZER_DURATION_MS.min, max: BUZZER_DURATION_MS.max })),
    }),
    // A project's stored image, by name: the hub puts the image in its place when it takes the job.
    logo: object({ name: imageName }),
    qr: object({
      value: andPrintable(string({ min: 1, max: MAX_QR_LENGTH }), (value) => {
        const bytes = utf8.encode(value).length
        return bytes > MAX_QR_BYTES ? `is ${bytes} bytes in UTF-8; a QR code holds at most ${MAX_QR_BYTES}` : undefined
      }),
    }),
    barcode: andPrintable(
      object({
        format: oneOf(BARCODE_FORMATS),
        value: string({ min: 1, max: MAX_BARCODE_LENGTH, pattern: /^[\x20-\x7E]+$/, patternHint: 'printable ASCII' }),
      }),
      ({ format, value }) => {
        const problem = barcodeProblem(format, value)
        return problem && [{ path: 'value', message: problem }]
      },
    ),
    image: printable ? printableImageRule : imageShapeRule,
  })
  return andPrintable(
    object({ width: oneOf(PAPER_WIDTHS), sections: array(section, { min: 1, max: MAX_SECTIONS }) }),
    (document) => documentCostProblems(document).map((message) => ({ path: '', message })),
  )
}

/**
 * Where a document uses what OpenPrinter v1 does not have (printhub's extensions), one issue each,
 * naming the field or section: such a document goes only to an agent that is printhub.
 */
export function documentExtensions(document: { sections: readonly object[] }): Issue[] {
  const issues: Issue[] = []
  document.sections.forEach((section, index) => {
    const { type } = section as { type: string }
    const fields = type === 'text' ? TEXT_STYLE_EXTENSIONS : type === 'row' ? ROW_EXTENSIONS : []
    for (const field of fields)
      if ((section as Record<string, unknown>)[field] !== undefined)
        issues.push({
          path: `sections[${index}].${field}`,
          message: `is a printhub extension (${type} ${field}) that OpenPrinter v1 does not have`,
        })
    if ((SECTION_EXTENSIONS as readonly string[]).includes(type))
      issues.push({
        path: `sections[${index}].type`,
        message: `is a printhub extension (the ${type} section) that OpenPrinter v1 does not have`,
      })
  })
  return issues
}

/** The document as the hub accepts it: valid, and printable, with printhub's extensions. */
export const documentRule = documentRuleOf(true)
/** The document as a frame between two printhub ends carries it: shape and bounds, extensions too. */
export const printhubWireDocumentRule = documentRuleOf(false)
/** The document as an OpenPrinter frame carries it: shape and bounds only, as its schema says. */
export const wireDocumentRule = refine(printhubWireDocumentRule, documentExtensions)

export type PrintDocument = Infer<typeof documentRule>
export type Section = PrintDocument['sections'][number]
export type PaperWidth = (typeof PAPER_WIDTHS)[number]

/** A job prints its document this many times at most (the job option `copies`). */
export const MAX_COPIES = 10

/**
 * The document printed `copies` times, one after another, with a cut between each and the next
 * (its own last cut when it ends with one): what the printer is sent for a job with copies, so
 * every agent prints it as one job with one confirmation.
 */
export function withCopies<D extends { width: PaperWidth; sections: readonly object[] }>(
  document: D,
  copies: number,
): D {
  if (copies <= 1) return document
  const last = document.sections.at(-1) as { type?: string } | undefined
  const copy = last?.type === 'cut' ? document.sections : [...document.sections, { type: 'cut' }]
  const sections = Array.from({ length: copies }, (_, i) => (i === copies - 1 ? document.sections : copy)).flat()
  return { ...document, sections }
}

/** What is wrong with printing the document `copies` times (too many sections, or over a cost limit), or undefined. */
export function copiesProblem(document: PrintDocument, copies: number): string | undefined {
  if (copies <= 1) return undefined
  const printed = withCopies(document, copies)
  if (printed.sections.length > MAX_SECTIONS)
    return (
      `makes ${printed.sections.length} sections with the cuts between copies; ` +
      `a document may have at most ${MAX_SECTIONS}`
    )
  const costs = documentCostProblems(printed)
  return costs.length > 0 ? `makes a document that ${costs[0]}` : undefined
}
