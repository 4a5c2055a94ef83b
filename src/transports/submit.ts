// Hands a rendered job to its printer, whatever the connection, and asks an idle printer how it
// is. Network, serial and USB links share the printer's language (printer-link.ts); virtual
// printers and files only keep the bytes.
import { findProfile } from '../profiles/catalog.ts'
import type { Connection } from '../domain/connection-uri.ts'
import type { DeviceFinder } from './devices.ts'
import { submitToFile } from './file.ts'
import { type OpenChannel, probeLink, readLinkStatus, submitOverLink } from './printer-link.ts'
import { describeStatus, type PrinterCondition } from './printer-status.ts'
import { serialChannel } from './serial.ts'
import type { PrinterModel, Submission } from './submission.ts'
import type { PrinterState } from '../domain/printer-state.ts'
import { tcpChannel } from './tcp.ts'
import { usbChannel, usbName } from './usb.ts'
import { loadUsbBackend, type UsbBackend } from './usb-bulk.ts'
import type { VirtualPrinters } from './virtual.ts'

/** What the transports keep between jobs. */
export interface Transports {
  virtuals: VirtualPrinters
  devices: DeviceFinder
  /** Where USB devices without usblp are found (the `usb` package; a stand-in in tests). */
  usb?: () => Promise<UsbBackend>
}

/** The channel to a printer that speaks back, and how it is named; undefined for virtual printers and files. */
export function linkTo(connection: Connection, transports: Transports): { open: OpenChannel; where: string } | undefined {
  switch (connection.kind) {
    case 'tcp':
      return { open: tcpChannel(connection.host, connection.port), where: `${connection.host}:${connection.port}` }
    case 'serial':
      return { open: serialChannel(connection, transports.devices), where: connection.path }
    case 'usb-device-file':
    case 'usb-id':
      return { open: usbChannel(connection, transports.devices, transports.usb ?? loadUsbBackend), where: usbName(connection) }
    default:
      return undefined
  }
}

/**
 * `model` is the printer's model and paper: a printer is asked for its status as its profile
 * allows, and a virtual one keeps them to preview what it printed.
 */
export async function submit(connection: Connection, bytes: Uint8Array, signal: AbortSignal, transports: Transports, model: PrinterModel): Promise<Submission> {
  if (connection.kind === 'virtual') {
    await transports.virtuals.submit(connection, bytes, signal, model)
    return {}
  }
  if (connection.kind === 'file') {
    await submitToFile(connection.path, bytes)
    return {}
  }
  const link = linkTo(connection, transports)!
  // A model this printhub does not know is asked nothing: its bytes are all it gets.
  const status = findProfile(model.profile)?.status ?? { realtime: false, processIdResponse: false }
  return submitOverLink(link.open, link.where, bytes, signal, status)
}

/** The state of an idle printer whose model answers status requests; undefined when it cannot be asked. */
export function readStatus(connection: Connection, transports: Transports, model: PrinterModel): Promise<PrinterState> | undefined {
  const link = linkTo(connection, transports)
  if (!link || !findProfile(model.profile)?.status.realtime) return undefined
  return readLinkStatus(link.open, link.where)
}

/**
 * Checks a printer that speaks back: its condition, or null when it does not answer status
 * requests (write-only); rejects with a SubmitError when it cannot be reached.
 */
export async function probe(connection: Connection, transports: Transports): Promise<PrinterCondition | null> {
  const link = linkTo(connection, transports)
  if (!link) throw new RangeError(`${connection.kind} printers cannot be probed`)
  const status = await probeLink(link.open, link.where)
  return status ? describeStatus(status[0]!, status[1]!, status[2]!) : null
}
