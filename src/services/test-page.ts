// The test page, and how the hub names itself on it and in the dashboard: its name, its machine,
// its LAN addresses, the URL to reach it.
import { hostname, networkInterfaces } from 'node:os'
import { findProfile } from '../profiles/catalog.ts'
import type { PrintDocument } from '../protocol/document.ts'
import { isWildcardHost } from '../hub/config.ts'

export interface HubOnTheLan {
  name: string
  url: string
  addresses: string[]
}

/** The machine's LAN addresses (IPv4 first). */
export function lanAddresses(): string[] {
  const all = Object.values(networkInterfaces()).flatMap((list) => list ?? []).filter((address) => !address.internal)
  return [...all.filter((a) => a.family === 'IPv4'), ...all.filter((a) => a.family !== 'IPv4')].map((a) => a.address)
}

/** How people on the LAN reach a hub listening on `host`:`port`: its first LAN address when it listens on all. */
export function hubOnTheLan(serverName: string, host: string, port: number): HubOnTheLan {
  const addresses = lanAddresses()
  const shown = isWildcardHost(host) ? (addresses[0] ?? '127.0.0.1') : host
  return { name: `${serverName} (${hostname()})`, url: `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}/`, addresses }
}

/** The test page: who prints (the hub, its addresses), on what (the printer, its model), and a QR code to the hub. */
export function testPage(printer: { id: string; connection: string; profile: string; width: 58 | 80 }, hub: { name: string; url: string; addresses: string[] }, status: string, now: Date): PrintDocument {
  const profile = findProfile(printer.profile)
  return {
    width: printer.width,
    sections: [
      { type: 'text', value: 'printhub test page', align: 'center', bold: true },
      { type: 'divider' },
      { type: 'row', left: 'Hub', right: hub.name },
      ...hub.addresses.slice(0, 4).map((address, i) => ({ type: 'row' as const, left: i === 0 ? 'Addresses' : '', right: address })),
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

