// The print document (OpenPrinter v1 section 5): the one definition the API, the agent and the
// client library validate against.
import { BARCODE_FORMATS, barcodeProblem } from './barcode.ts'
import { IMAGE_MEDIA_TYPES, imageProblem } from './image.ts'
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
import { type Infer, array, boolean, integer, object, oneOf, optional, refine, string, tagged } from './rules.ts'

export const PAPER_WIDTHS = [58, 80] as const
export const TEXT_ALIGNMENTS = ['left', 'center', 'right'] as const

const utf8 = new TextEncoder()

export const sectionRule = tagged('type', {
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
    value: refine(string({ min: 1, max: MAX_QR_LENGTH }), (value) => {
      const bytes = utf8.encode(value).length
      return bytes > MAX_QR_BYTES ? `is ${bytes} bytes in UTF-8; a QR code holds at most ${MAX_QR_BYTES}` : undefined
    }),
  }),
  barcode: refine(
    object({
      format: oneOf(BARCODE_FORMATS),
      value: string({ min: 1, max: MAX_BARCODE_LENGTH, pattern: /^[\x20-\x7E]+$/, patternHint: 'printable ASCII' }),
    }),
    ({ format, value }) => {
      const problem = barcodeProblem(format, value)
      return problem && [{ path: 'value', message: problem }]
    },
  ),
  image: refine(
    object({ mediaType: oneOf(IMAGE_MEDIA_TYPES), data: string({ min: 4, max: MAX_IMAGE_BASE64_LENGTH }) }),
    ({ mediaType, data }) => {
      const problem = imageProblem(mediaType, data)
      return problem && [{ path: 'data', message: problem }]
    },
  ),
})

export const documentRule = object({
  width: oneOf(PAPER_WIDTHS),
  sections: array(sectionRule, { min: 1, max: MAX_SECTIONS }),
})

export type Section = Infer<typeof sectionRule>
export type PrintDocument = Infer<typeof documentRule>
export type PaperWidth = (typeof PAPER_WIDTHS)[number]
