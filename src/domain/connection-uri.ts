// The connection URI of a printer record: how the agent reaches the printer. Parsed once here;
// the transports take the parsed form.
import type { PrinterDescriptor } from '../protocol/frames.ts'
import { SDP_ID_PATTERN } from '../protocol/epson-sdp.ts'
import type { POLLING_KINDS } from '../protocol/admin/printers.ts'

export const SERIAL_BAUD_RATES = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400] as const
export const SERIAL_FLOW_CONTROLS = ['rtscts', 'xonxoff', 'none'] as const
export const SERIAL_PARITIES = ['none', 'even', 'odd'] as const
export const DEFAULT_TCP_PORT = 9100

export type Connection =
  | { kind: 'tcp'; host: string; port: number }
  | {
      kind: 'serial'
      path: string
      baud: number
      flow: (typeof SERIAL_FLOW_CONTROLS)[number]
      bits: 7 | 8
      parity: (typeof SERIAL_PARITIES)[number]
      stop: 1 | 2
    }
  | { kind: 'usb-device-file'; path: string }
  | { kind: 'usb-id'; vendorId: number; productId: number; serial: string | null }
  | { kind: 'file'; path: string }
  | { kind: 'virtual'; name: string; mode: VirtualMode; delayMs: number }
  /** A Star CloudPRNT printer: it polls the hub for its jobs (`/cloudprnt`), known by its Ethernet MAC address. */
  | { kind: 'cloudprnt'; mac: string }
  /**
   * An Epson printer with Server Direct Print: it polls the hub for its jobs (`/epson-sdp`), known by its ID (or Name).
   */
  | { kind: 'epson-sdp'; id: string }

/** How a virtual printer behaves: prints, fails every job (retryably), or reports itself offline. */
export const VIRTUAL_MODES = ['ok', 'fail', 'offline'] as const
export type VirtualMode = (typeof VIRTUAL_MODES)[number]
/** The longest a virtual printer may take per job (to hold a job in flight in a test or a demo). */
export const MAX_VIRTUAL_DELAY_MS = 60_000

export type ParsedConnection = { ok: true; connection: Connection } | { ok: false; message: string }

const EXAMPLES =
  'tcp://192.168.1.50:9100, serial:///dev/ttyUSB0?baud=38400&flow=rtscts, ' +
  'usb:///dev/usb/lp0, usb://04b8:0e28, cloudprnt://00:11:62:12:34:56, ' +
  'epson-sdp://ID, file:///tmp/out.bin or virtual'

function fail(message: string): ParsedConnection {
  return { ok: false, message: `${message} (examples: ${EXAMPLES})` }
}

class SettingError extends Error {}

/** The value of setting `name` from `allowed`, or `fallback` when it is not given. */
function pick<const T extends readonly (string | number)[]>(
  params: URLSearchParams,
  name: string,
  allowed: T,
  fallback: T[number],
): T[number] {
  const raw = params.get(name)
  if (raw === null) return fallback
  const value = allowed.find((candidate) => String(candidate) === raw)
  if (value === undefined) throw new SettingError(`${name} must be one of ${allowed.join(', ')}`)
  return value
}

function parseSerial(url: URL): ParsedConnection {
  // Any absolute path: a stable udev name (/dev/serial/by-id/...) or an emulator's link are links to the port.
  if (url.pathname.length < 2 || url.pathname.endsWith('/'))
    return fail('a serial connection names the port, as serial:///dev/ttyUSB0')
  const known = new Set(['baud', 'flow', 'bits', 'parity', 'stop'])
  const unknown = [...url.searchParams.keys()].find((key) => !known.has(key))
  if (unknown) return fail(`unknown serial setting "${unknown}"`)
  const params = url.searchParams
  try {
    const connection: Connection = {
      kind: 'serial',
      path: decodeURIComponent(url.pathname),
      baud: pick(params, 'baud', SERIAL_BAUD_RATES, 9600),
      flow: pick(params, 'flow', SERIAL_FLOW_CONTROLS, 'rtscts'),
      bits: pick(params, 'bits', [7, 8] as const, 8),
      parity: pick(params, 'parity', SERIAL_PARITIES, 'none'),
      stop: pick(params, 'stop', [1, 2] as const, 1),
    }
    return { ok: true, connection }
  } catch (error) {
    if (error instanceof SettingError) return fail(error.message)
    throw error
  }
}

function parseUsb(text: string): ParsedConnection {
  if (text.startsWith('usb:///')) {
    const path = text.slice('usb://'.length)
    return path.startsWith('/dev/') && !/[?#\s]/.test(path)
      ? { ok: true, connection: { kind: 'usb-device-file', path } }
      : fail('a USB device file lies under /dev, as usb:///dev/usb/lp0')
  }
  const match = /^usb:\/\/([0-9a-fA-F]{4}):([0-9a-fA-F]{4})(?:\/([A-Za-z0-9._-]{1,128}))?$/.exec(text)
  if (!match) return fail('a USB printer by id is usb://VID:PID or usb://VID:PID/SERIAL with 4 hex digits each')
  return {
    ok: true,
    connection: {
      kind: 'usb-id',
      vendorId: parseInt(match[1]!, 16),
      productId: parseInt(match[2]!, 16),
      serial: match[3] ?? null,
    },
  }
}

function parseTcp(text: string): ParsedConnection {
  const match = /^tcp:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?\/?$/.exec(text)
  const port = match?.[2] === undefined ? DEFAULT_TCP_PORT : Number(match[2])
  if (!match || port < 1 || port > 65535)
    return fail('a network printer is tcp://HOST or tcp://HOST:PORT with a port from 1 to 65535')
  return { ok: true, connection: { kind: 'tcp', host: match[1]!.replace(/^\[|\]$/g, ''), port } }
}

function parseUrl(text: string): URL | undefined {
  try {
    const url = new URL(text)
    return url.username || url.password || url.hash || url.host ? undefined : url
  } catch {
    return undefined
  }
}

export function parseConnectionUri(text: string): ParsedConnection {
  if (text === 'virtual') return { ok: true, connection: { kind: 'virtual', name: 'virtual', mode: 'ok', delayMs: 0 } }
  const scheme = /^([a-z]+):\/\//.exec(text)?.[1]
  switch (scheme) {
    case 'tcp':
      return parseTcp(text)
    case 'usb':
      return parseUsb(text)
    case 'serial': {
      const url = parseUrl(text)
      return url ? parseSerial(url) : fail('a serial connection names the port, as serial:///dev/ttyUSB0')
    }
    case 'file': {
      const url = parseUrl(text)
      return url && url.pathname.length > 1 && !url.search
        ? { ok: true, connection: { kind: 'file', path: decodeURIComponent(url.pathname) } }
        : fail('a file connection is file:///absolute/path')
    }
    case 'virtual':
      return parseVirtual(text)
    case 'cloudprnt': {
      const mac = normalMac(text.slice('cloudprnt://'.length))
      return mac
        ? { ok: true, connection: { kind: 'cloudprnt', mac } }
        : fail('a CloudPRNT printer is cloudprnt://MAC, its Ethernet MAC address as 00:11:62:12:34:56')
    }
    default:
      if (text.startsWith('epson-sdp://')) {
        const id = text.slice('epson-sdp://'.length)
        return SDP_ID_PATTERN.test(id)
          ? { ok: true, connection: { kind: 'epson-sdp', id } }
          : fail(
              'an Epson Server Direct Print printer is epson-sdp://ID, its ID (or Name) ' +
                'of 1 to 30 letters, digits, _ . or -',
            )
      }
      return fail(scheme ? `unknown connection kind "${scheme}"` : `"${text}" is not a connection URI`)
  }
}

/**
 * A MAC address written as printers and their labels write it (`00:11:62:AB:CD:EF`,
 * `00-11-62-ab-cd-ef`, `001162abcdef`), in the one form printhub keeps: lower case, with colons.
 * Undefined when it is not a MAC address.
 */
export function normalMac(text: string): string | undefined {
  const match =
    /^([0-9a-f]{2})[:-]?([0-9a-f]{2})[:-]?([0-9a-f]{2})[:-]?([0-9a-f]{2})[:-]?([0-9a-f]{2})[:-]?([0-9a-f]{2})$/i.exec(
      text,
    )
  return match ? match.slice(1).join(':').toLowerCase() : undefined
}

/** The connection URI of a CloudPRNT printer. */
export const cloudPrntUri = (mac: string): string => `cloudprnt://${mac}`

/** The kinds of printers that poll the hub for their jobs (the admin API's list). */
export type PollingKind = (typeof POLLING_KINDS)[number]

/** The connection of a printer attached to one machine: reached from that machine alone. */
export type AttachedConnection = Extract<Connection, { kind: 'serial' | 'usb-device-file' | 'usb-id' | 'file' }>

/** Whether the printer is attached to the machine that drives it (a device, or a file there). */
export function isAttached(connection: Connection): connection is AttachedConnection {
  return ['serial', 'usb-device-file', 'usb-id', 'file'].includes(connection.kind)
}

/** The connection of a printer that polls the hub. */
export type PollingConnection = Extract<Connection, { kind: PollingKind }>

/** Whether the printer polls the hub for its jobs (it is not reached: it comes). */
export function polls(connection: Connection): connection is PollingConnection {
  return connection.kind === 'cloudprnt' || connection.kind === 'epson-sdp'
}

/**
 * The connection URI a printer that polls is kept under: one spelling, so one printer is one record however it was
 * typed.
 */
export const pollingUri = (connection: Extract<Connection, { kind: PollingKind }>): string =>
  connection.kind === 'cloudprnt' ? cloudPrntUri(connection.mac) : `epson-sdp://${connection.id}`

/**
 * The connection of a printer that polls, from what a technician types: a MAC address is a
 * CloudPRNT printer's; any other ID an Epson Server Direct Print printer's. `kind` says which when
 * it is known (an ID of twelve hex digits could be either); so do the connection URIs themselves.
 */
export function pollingConnection(
  text: string,
  kind?: PollingKind,
): { ok: true; connection: Extract<Connection, { kind: PollingKind }>; uri: string } | { ok: false; message: string } {
  const parsed = parseConnectionUri(
    text.includes('://')
      ? text
      : kind === 'epson-sdp' || (kind === undefined && !normalMac(text))
        ? `epson-sdp://${text}`
        : `cloudprnt://${text}`,
  )
  if (
    parsed.ok &&
    (parsed.connection.kind === 'cloudprnt' || parsed.connection.kind === 'epson-sdp') &&
    (kind === undefined || parsed.connection.kind === kind)
  ) {
    const connection = parsed.connection
    return { ok: true, connection, uri: pollingUri(connection) }
  }
  return {
    ok: false,
    message:
      `${JSON.stringify(text.slice(0, 64))} is not a MAC address (as ` +
      `00:11:62:12:34:56, for a Star CloudPRNT printer) nor an Epson Server ` +
      `Direct Print ID (1 to 30 letters, digits, _ . or -)`,
  }
}

/** A virtual printer's name (`virtual://NAME`). */
export const VIRTUAL_NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/

function parseVirtual(text: string): ParsedConnection {
  const [name = '', query = ''] = text.slice('virtual://'.length).split('?', 2)
  if (!VIRTUAL_NAME_PATTERN.test(name))
    return fail('a virtual printer is virtual or virtual://NAME[?mode=ok|fail|offline&delay=MS]')
  const params = new URLSearchParams(query)
  for (const key of params.keys())
    if (key !== 'mode' && key !== 'delay') return fail(`unknown virtual printer setting "${key}" (mode, delay)`)
  try {
    const mode = pick(params, 'mode', VIRTUAL_MODES, 'ok')
    const delay = params.get('delay')
    const delayMs = delay === null ? 0 : Number(delay)
    if (!/^\d+$/.test(delay ?? '0') || delayMs > MAX_VIRTUAL_DELAY_MS)
      throw new SettingError(`delay must be a whole number of milliseconds up to ${MAX_VIRTUAL_DELAY_MS}`)
    return { ok: true, connection: { kind: 'virtual', name, mode, delayMs } }
  } catch (error) {
    if (error instanceof SettingError) return fail(error.message)
    throw error
  }
}

/** How a paired agent's printer is reached, as its inventory describes it, for a record made from its descriptor. */
export function connectionOf(descriptor: PrinterDescriptor): string {
  const c = descriptor.connection
  return c.type === 'tcp' ? `tcp://${c.host}:${c.port}` : c.type === 'virtual' ? 'virtual' : c.systemName
}
