// The printers an agent serves and how it describes them in its inventory (reference section 6).
import type { PrinterDescriptor } from '../protocol/frames.ts'
import type { PaperWidth } from '../protocol/document.ts'
import { type Connection, type ParsedConnection, parseConnectionUri } from '../domain/connection-uri.ts'

export interface CatalogPrinter {
  /** The printer's ID in the agent's inventory: what jobs name. */
  id: string
  name: string
  connection: string
  profile: string
  width: PaperWidth
}

/** A printer the agent serves, with its connection parsed once, when the catalog was read. */
export interface ServedPrinter extends CatalogPrinter {
  parsed: ParsedConnection
}

export function served(printer: CatalogPrinter): ServedPrinter {
  return { ...printer, parsed: parseConnectionUri(printer.connection) }
}

/** Where the agent's printers are configured: the hub's records (built-in) or the agent's ledger. */
export interface PrinterCatalog {
  printers(): CatalogPrinter[]
}

/** Without a status learned from the printer: only a virtual printer knows it is offline. */
function availabilityOf(connection: Connection): PrinterDescriptor['availability'] {
  if (connection.kind !== 'virtual') return 'unknown'
  return connection.mode === 'offline' ? 'offline' : 'online'
}

/**
 * The protocol knows three kinds: network (raw TCP), virtual, and local. Serial, USB and file
 * printers are attached to the agent's machine, so they are `local`, named by their connection.
 * `learned` is the availability the printer's own status gave, when it gave one.
 */
export function describePrinter(
  printer: ServedPrinter,
  learned?: PrinterDescriptor['availability'],
): PrinterDescriptor {
  const parsed = printer.parsed
  const capabilities = { mediaWidths: [printer.width], raster: true, cut: true, qr: true, barcode: true }
  const common = { id: printer.id, name: printer.name.slice(0, 256) || printer.id, capabilities, enabled: parsed.ok }
  if (!parsed.ok)
    return {
      ...common,
      kind: 'local',
      fingerprint: `invalid:${printer.id}`,
      availability: 'offline',
      connection: { type: 'system', systemName: printer.connection.slice(0, 256) || 'invalid' },
    }
  const connection = parsed.connection
  const availability = learned ?? availabilityOf(connection)
  switch (connection.kind) {
    case 'tcp':
      return {
        ...common,
        kind: 'network',
        fingerprint: `tcp:${connection.host}:${connection.port}`,
        availability,
        connection: { type: 'tcp', host: connection.host, port: connection.port },
      }
    case 'virtual':
      return {
        ...common,
        kind: 'virtual',
        fingerprint: `virtual:${connection.name}`,
        availability,
        connection: { type: 'virtual' },
      }
    default:
      return {
        ...common,
        kind: 'local',
        fingerprint: printer.connection.slice(0, 256),
        availability,
        connection: { type: 'system', systemName: printer.connection.slice(0, 256) },
      }
  }
}
