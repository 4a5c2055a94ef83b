// The print document (OpenPrinter v1 section 5): the one definition the API, the agent and the
// client library validate against.
import { BARCODE_FORMATS, barcodeProblem } from './barcode.ts'
import { documentCostProblems } from './document-cost.ts'
import { IMAGE_MEDIA_TYPES, imageProblem, isStandardBase64, STANDARD_BASE64_HINT } from './image.ts'
import {
  MAX_BARCODE_LENGTH,
  MAX_FEED_LINES,
  MAX_IMAGE_BASE64_LENGTH,
  MAX_QR_BYTES,
  MAX_QR_LENGTH,
  MAX_ROW_SIDE_LENGTH,
  MAX_SECTIONS,
  MAX_TEXT_LENGTH,
} from './limits.ts'
import { array, boolean, type Infer, integer, type Issue, object, oneOf, optional, refine, type Rule, string, tagged } from './rules.ts'

export const PAPER_WIDTHS = [58, 80] as const
export const TEXT_ALIGNMENTS = ['left', 'center', 'right'] as const

const utf8 = new TextEncoder()

/**
 * The document rule, with or without the checks that a document will print: check digits, QR
 * capacity, real images. OpenPrinter's schema leaves those to the renderer, so frames are decoded
 * without them; the hub's API and the client library refuse such a document at once.
 */
function documentRuleOf(printable: boolean) {
  const andPrintable = <T>(rule: Rule<T>, check: (value: T) => string | Issue[] | undefined): Rule<T> => (printable ? refine(rule, check) : rule)
  const section = tagged('type', {
    text: object({
      value: string({ max: MAX_TEXT_LENGTH }),
      align: optional(oneOf(TEXT_ALIGNMENTS)),
      bold: optional(boolean()),
    }),
    row: object({ left: string({ max: MAX_ROW_SIDE_LENGTH }), right: string({ max: MAX_ROW_SIDE_LENGTH }) }),
    divider: object({}),
    feed: object({ lines: integer({ min: 1, max: MAX_FEED_LINES }) }),
    cut: object({}),
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
    image: andPrintable(
      object({
        mediaType: oneOf(IMAGE_MEDIA_TYPES),
        data: refine(string({ min: 4, max: MAX_IMAGE_BASE64_LENGTH }), (data) => (isStandardBase64(data) ? undefined : STANDARD_BASE64_HINT)),
      }),
      ({ mediaType, data }) => {
        const problem = imageProblem(mediaType, data)
        return problem && [{ path: 'data', message: problem }]
      },
    ),
  })
  return andPrintable(object({ width: oneOf(PAPER_WIDTHS), sections: array(section, { min: 1, max: MAX_SECTIONS }) }), (document) =>
    documentCostProblems(document).map((message) => ({ path: '', message })),
  )
}

/** The document as the hub accepts it: valid, and printable. */
export const documentRule = documentRuleOf(true)
/** The document as an OpenPrinter frame carries it: shape and bounds only, as its schema says. */
export const wireDocumentRule = documentRuleOf(false)

export type PrintDocument = Infer<typeof documentRule>
export type Section = PrintDocument['sections'][number]
export type PaperWidth = (typeof PAPER_WIDTHS)[number]
