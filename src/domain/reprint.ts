// A reprint's document: the original's, under a banner that says it is a reprint and when the
// original was made, so nobody cooks an order twice. The banner uses only OpenPrinter's own
// sections, so any agent prints it.
import type { PrintDocument, Section } from '../protocol/document.ts'

export const REPRINT_HEADLINE = '*** REPRINT ***'

/**
 * The original's time as the venue reads it: the hub's local time (its time zone, TZ), to the
 * minute. Plain date arithmetic: no locale data is loaded for it.
 */
export function venueTime(ms: number): string {
  const at = new Date(ms)
  const two = (n: number) => String(n).padStart(2, '0')
  return (
    `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ` +
    `${two(at.getHours())}:${two(at.getMinutes())}`
  )
}

function banner(originalCreatedAt: number): Section[] {
  return [
    { type: 'text', value: REPRINT_HEADLINE, align: 'center', bold: true },
    { type: 'text', value: `First printed for ${venueTime(originalCreatedAt)}`, align: 'center' },
    { type: 'divider' },
  ]
}

/** The banner's sections: the headline, the time, a divider. */
const BANNER_SECTIONS = 3

/**
 * Whether a document starts with a reprint banner (a reprint of a reprint gets one banner, the first original's time
 * kept).
 */
function hasBanner(document: PrintDocument): boolean {
  const first = document.sections[0]
  return first?.type === 'text' && first.value === REPRINT_HEADLINE && document.sections.length > BANNER_SECTIONS
}

/**
 * The document a reprint prints: `document` (the stored one of the job reprinted) under a banner
 * naming when the original was made. A reprint's own banner is kept as it is (it names the first
 * original), never stacked.
 */
export function reprintDocument(document: PrintDocument, originalCreatedAt: number): PrintDocument {
  if (hasBanner(document)) return document
  return { ...document, sections: [...banner(originalCreatedAt), ...document.sections] }
}
