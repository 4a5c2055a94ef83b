// The doctor's checks of the printers this machine drives itself: each one's connection valid and
// allowed, and the printer there (a TCP printer answers, a device file is writable, a printer that
// polls the hub has polled it lately).
import { accessSync, constants } from 'node:fs'
import { parseConnectionUri } from '../domain/connection-uri.ts'
import type { StoreInspection } from '../store/inspection.ts'
import { type Confinement, confineConnection } from '../transports/confine.ts'
import type { Finding } from './finding.ts'

/** Printers answer a connection attempt within this, or are taken as unreachable. */
const PRINTER_CONNECT_MS = 2_000

/** The printers this machine drives itself (the built-in agent's); remote agents check their own. */
type HubPrinter = ReturnType<StoreInspection['hubPrinters']>[number]

export function hubPrinters(database: StoreInspection): HubPrinter[] {
  try {
    return database.hubPrinters()
  } catch {
    return []
  }
}

export async function printerReachable(printer: HubPrinter, confinement: Confinement): Promise<Finding> {
  const { remoteId: name, connection: uri } = printer
  const check = `printer ${name}`
  const parsed = parseConnectionUri(uri)
  if (!parsed.ok) return { check, verdict: 'fail', detail: `its connection ${uri} is invalid: ${parsed.message}` }
  const connection = parsed.connection
  // A record from before printers were confined: jobs to it fail until its connection is changed.
  const confined = confineConnection(connection, confinement)
  if (!confined.ok)
    return {
      check,
      verdict: 'fail',
      detail:
        `its connection ${uri} is refused: ${confined.message}. Change it on the ` +
        `dashboard's Printers page (or printers remove, then printers add).`,
    }
  switch (connection.kind) {
    case 'tcp':
      return (await tcpAnswers(connection.host, connection.port))
        ? { check, verdict: 'ok', detail: `${connection.host}:${connection.port} accepts connections` }
        : {
            check,
            verdict: 'fail',
            detail:
              `${connection.host}:${connection.port} does not answer: is the printer ` +
              `on, on this network, and is the address right?`,
          }
    case 'virtual':
      return { check, verdict: 'ok', detail: 'a virtual printer (nothing is printed on paper)' }
    case 'file':
    case 'serial':
    case 'usb-device-file':
      try {
        accessSync(connection.path, constants.W_OK)
        return { check, verdict: 'ok', detail: `${connection.path} is writable` }
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        return {
          check,
          verdict: 'fail',
          detail:
            code === 'ENOENT'
              ? `${connection.path} does not exist: is the printer plugged in and on?`
              : `${connection.path} is not writable by this user (${code}).`,
        }
      }
    case 'usb-id':
      return {
        check,
        verdict: 'warn',
        detail:
          `USB ${connection.vendorId.toString(16).padStart(4, '0')}:` +
          `${connection.productId.toString(16).padStart(4, '0')}: ` +
          `not checked here`,
      }
    case 'cloudprnt':
    case 'epson-sdp': {
      // The hub records a polling printer's state as its polls say it, and offline once they stop.
      const [what, path] =
        connection.kind === 'cloudprnt'
          ? [`CloudPRNT printer ${connection.mac}`, '/cloudprnt']
          : [`Epson Server Direct Print printer ${connection.id}`, '/epson-sdp']
      return printer.state === null || printer.state === 'offline'
        ? {
            check,
            verdict: 'warn',
            detail:
              `${what} has not polled the hub ` +
              `recently${printer.since ? ` (offline since ${printer.since})` : ''}: is ` +
              `it on, and is its server URL this hub's ${path}? ` +
              `(docs/cloud-printers.md)`,
          }
        : { check, verdict: 'ok', detail: `${what} polls the hub (${printer.state} since ${printer.since})` }
    }
  }
}

function tcpAnswers(host: string, portNumber: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), PRINTER_CONNECT_MS)
    Bun.connect({
      hostname: host,
      port: portNumber,
      socket: {
        open(socket) {
          clearTimeout(timer)
          socket.end()
          resolve(true)
        },
        data() {},
        connectError() {
          clearTimeout(timer)
          resolve(false)
        },
      },
    }).catch(() => {
      clearTimeout(timer)
      resolve(false)
    })
  })
}
