// Hands a rendered job to its printer, whatever the connection, and asks an idle printer how it
// is. Network, serial and USB links share the printer's language (printer-link.ts); virtual
// printers and files only keep the bytes; printers that poll fetch them (polling.ts). Every
// expected outcome (a printer unreachable, out of paper, a job cancelled) comes back as a value;
// a rejection means a bug.
import { findProfile } from '../profiles/catalog.ts'
import { failure } from '../protocol/failures.ts'
import { type Connection, polls } from '../domain/connection-uri.ts'
import type { PrinterState } from '../domain/printer-state.ts'
import type { OpenChannel } from './channel.ts'
import type { CloudPrnt } from './cloudprnt.ts'
import type { EpsonSdp } from './epson-sdp.ts'
import { type Confinement, confineConnection } from './confine.ts'
import type { DeviceFinder } from './devices.ts'
import { submitToFile } from './file.ts'
import { type PrinterChannel, probeLink, readLinkStatus, type ReadyPrinter, readyOverLink } from './printer-link.ts'
import { serialChannel } from './serial.ts'
import {
  CANCELLED,
  type PrinterModel,
  type ProbeOutcome,
  refused,
  type Stopped,
  type SubmitOutcome,
} from './submission.ts'
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
  /** What printers may reach: device files, the output folder, network printers other than the hub. */
  confinement: Confinement
  /** The printers that poll the hub for their jobs (only the hub's own agent has them). */
  cloudPrnt?: CloudPrnt
  epsonSdp?: EpsonSdp
}

/** A connection to a printer that speaks back: network, serial and USB printers. */
export type LinkedConnection = Extract<Connection, { kind: 'tcp' | 'serial' | 'usb-device-file' | 'usb-id' }>

/** Whether the printer speaks back (can be probed); virtual printers and files do not. */
export function speaksBack(connection: Connection): connection is LinkedConnection {
  return connection.kind !== 'virtual' && connection.kind !== 'file' && !polls(connection)
}

export { polls }

/** Tells the servers of printers that poll which of them are this agent's (the others are offered nothing). */
export function servePolling(transports: Transports, connections: Connection[]): void {
  transports.cloudPrnt?.serve(connections.flatMap((c) => (c.kind === 'cloudprnt' ? [c.mac] : [])))
  transports.epsonSdp?.serve(connections.flatMap((c) => (c.kind === 'epson-sdp' ? [c.id] : [])))
}

/** Where a printer that polls is served, when this agent serves it (the hub's own does). */
function pollingServer(
  connection: Extract<Connection, { kind: 'cloudprnt' | 'epson-sdp' }>,
  transports: Transports,
): { key: string; server: CloudPrnt | EpsonSdp | undefined } {
  return connection.kind === 'cloudprnt'
    ? { key: connection.mac, server: transports.cloudPrnt }
    : { key: connection.id, server: transports.epsonSdp }
}

/** The channel to a printer that speaks back, and how it is named in messages. */
function linkTo(connection: LinkedConnection, transports: Transports): PrinterChannel {
  switch (connection.kind) {
    case 'tcp': {
      // Device files are confined where they are opened (serial.ts, usb.ts), on the file found then.
      const confined = confineConnection(connection, transports.confinement)
      const open: OpenChannel = confined.ok
        ? tcpChannel(connection.host, connection.port)
        : async () => refused(failure('printer.invalid_connection', confined.message))
      return { open, where: `${connection.host}:${connection.port}` }
    }
    case 'serial':
      return { open: serialChannel(connection, transports.devices), where: connection.path }
    case 'usb-device-file':
    case 'usb-id':
      return {
        open: usbChannel(connection, transports.devices, transports.usb ?? loadUsbBackend),
        where: usbName(connection),
      }
  }
}

/** How this agent reaches a printer, and the printer's model and paper. */
export interface PrinterAccess {
  transports: Transports
  model: PrinterModel
}

/**
 * Sends a job: cancelled (nothing sent) when `signal` has already aborted, and cut off when it
 * aborts while the bytes are written. `model` is the printer's model and paper: a printer is asked
 * for its status as its profile allows, and a virtual one keeps them to preview what it printed.
 */
export async function submit(
  connection: Connection,
  bytes: Uint8Array,
  signal: AbortSignal,
  { transports, model }: PrinterAccess,
): Promise<SubmitOutcome> {
  const ready = await readyPrinter(connection, signal, transports, model)
  return ready.ok ? ready.printer.send(bytes, signal) : ready
}

export type { ReadyPrinter }

/**
 * Everything before a job's first byte: the printer reached and, as its profile allows, asked its
 * status (one out of paper, with its cover open or in error is refused here). Virtual printers and
 * files are ready at once. Cancelled when `signal` has already aborted.
 */
export async function readyPrinter(
  connection: Connection,
  signal: AbortSignal,
  transports: Transports,
  model: PrinterModel,
): Promise<{ ok: true; printer: ReadyPrinter } | Stopped> {
  if (signal.aborted) return CANCELLED
  if (connection.kind === 'virtual')
    return {
      ok: true,
      printer: {
        send: async (bytes, sendSignal) =>
          sendSignal.aborted ? CANCELLED : transports.virtuals.submit(connection, bytes, sendSignal, model),
        release() {},
      },
    }
  if (connection.kind === 'file') {
    const outputDir = transports.confinement.outputDir
    return {
      ok: true,
      printer: {
        send: async (bytes, sendSignal) =>
          sendSignal.aborted ? CANCELLED : submitToFile(connection.path, bytes, outputDir),
        release() {},
      },
    }
  }
  if (polls(connection)) {
    const { key, server } = pollingServer(connection, transports)
    return server
      ? server.ready(key, signal, model)
      : refused(
          failure(
            'printer.invalid_connection',
            'Only the hub serves printers that poll for their jobs: add this printer ' +
              'on the hub, not on a remote agent.',
          ),
        )
  }
  const link = linkTo(connection, transports)
  // A model this printhub does not know is asked nothing: its bytes are all it gets.
  const status = findProfile(model.profile)?.status ?? { realtime: false, processIdResponse: false }
  return readyOverLink(link.open, link.where, signal, status)
}

/** The state of an idle printer whose model answers status requests; undefined when it cannot be asked. */
export function readStatus(
  connection: Connection,
  transports: Transports,
  model: PrinterModel,
): Promise<PrinterState> | undefined {
  // A printer that polls said its state in its last poll.
  if (polls(connection)) {
    const { key, server } = pollingServer(connection, transports)
    return server && Promise.resolve(server.state(key))
  }
  if (!speaksBack(connection) || !findProfile(model.profile)?.status.realtime) return undefined
  const link = linkTo(connection, transports)
  return readLinkStatus(link.open, link.where)
}

/**
 * Checks a printer that speaks back: its condition, null when it does not answer status requests (write-only), or why
 * it cannot be reached.
 */
export function probe(connection: LinkedConnection, transports: Transports): Promise<ProbeOutcome> {
  const link = linkTo(connection, transports)
  return probeLink(link.open, link.where)
}
