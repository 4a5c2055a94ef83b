// A reprint's document: the original's, under a banner that says it is a reprint and when the
// original was made, so nobody cooks an order twice. The banner uses only OpenPrinter's own
// sections, so any agent prints it.
import type { PrintDocument, Section } from '../protocol/document.ts'

export const REPRINT_HEADLINE = '*** REPRINT ***'

/** The original's time as the venue reads it: the hub's local time, to the minute. */
export function venueTime(ms: number, timeZone?: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(ms).map((part) => [part.type, part.value]),
  )
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`
}

function banner(originalCreatedAt: number, timeZone?: string): Section[] {
  return [
    { type: 'text', value: REPRINT_HEADLINE, align: 'center', bold: true },
    { type: 'text', value: `First printed for ${venueTime(originalCreatedAt, timeZone)}`, align: 'center' },
    { type: 'divider' },
  ]
}

const BANNER_SECTIONS = banner(0).length

/** Whether a document starts with a reprint banner (a reprint of a reprint gets one banner, the first original's time kept). */
function hasBanner(document: PrintDocument): boolean {
  const first = document.sections[0]
  return first?.type === 'text' && first.value === REPRINT_HEADLINE && document.sections.length > BANNER_SECTIONS
}

/**
 * The document a reprint prints: `document` (the stored one of the job reprinted) under a banner
 * naming when the original was made. A reprint's own banner is kept as it is (it names the first
 * original), never stacked.
 */
export function reprintDocument(document: PrintDocument, originalCreatedAt: number, timeZone?: string): PrintDocument {
  if (hasBanner(document)) return document
  return { ...document, sections: [...banner(originalCreatedAt, timeZone), ...document.sections] }
}
