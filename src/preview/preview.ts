// The receipt preview ("virtual printer"): printer bytes decoded into what the printer would
// print, shown as text or as a PNG. It reads bytes, never documents, and shares no code with the
// renderer, so it can catch the renderer's mistakes. See README.md.
export { type CommandSetName, type DecodeOptions, decodeReceipt, MAX_DOTS_PER_LINE } from './decode.ts'
export { CODE_PAGE_NAMES, type CodePageName } from './code-pages.ts'
export { EPSON_CODE_TABLES, STAR_CODE_PAGES } from './code-tables.ts'
export { MAX_PREVIEW_ROWS, receiptPng } from './png.ts'
export type * from './receipt.ts'
export { receiptText } from './text.ts'
export { MAX_WARNINGS } from './warnings.ts'
export { type PrinterPreview, previewFor } from './printer-preview.ts'
