// The test page: who prints (the hub, its addresses), on what (the printer, its model), and a QR
// code to the hub.
import { findProfile } from '../profiles/catalog.ts'
import type { PrintDocument } from '../protocol/document.ts'
import type { HubOnTheLan } from './lan.ts'

/** The test page: who prints (the hub, its addresses), on what (the printer, its model), and a QR code to the hub. */
export function testPage(
  printer: { id: string; connection: string; profile: string; width: 58 | 80 },
  hub: HubOnTheLan,
  status: string,
  now: Date,
): PrintDocument {
  const profile = findProfile(printer.profile)
  return {
    width: printer.width,
    sections: [
      { type: 'text', value: 'printhub test page', align: 'center', bold: true },
      { type: 'divider' },
      { type: 'row', left: 'Hub', right: hub.name },
      ...hub.addresses
        .slice(0, 4)
        .map((address, i) => ({ type: 'row' as const, left: i === 0 ? 'Addresses' : '', right: address })),
      { type: 'row', left: 'Printer', right: printer.id },
      { type: 'row', left: 'Model', right: `${profile?.name ?? printer.profile}, ${printer.width} mm` },
      { type: 'text', value: `Connection: ${printer.connection}` },
      { type: 'text', value: `Status: ${status}` },
      { type: 'row', left: 'Printed', right: now.toISOString().slice(0, 19).replace('T', ' ') },
      { type: 'divider' },
      { type: 'text', value: 'Äöü ß é è ñ ç € £ ¿ ¡', align: 'center' },
      { type: 'qr', value: hub.url },
      { type: 'text', value: hub.url, align: 'center' },
      { type: 'feed', lines: 1 },
      { type: 'cut' },
    ],
  }
}
