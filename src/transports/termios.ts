// The settings of a serial port in the kernel's own layout (struct termios of TCGETS/TCSETS, the
// same on x86-64 and arm64), so no C library's idea of the struct is involved. Raw: every byte
// goes out as it is (no newline translation, no echo, no signals), reads return what is there.
import type { Connection } from '../domain/connection-uri.ts'

export type SerialSettings = Pick<Extract<Connection, { kind: 'serial' }>, 'baud' | 'flow' | 'bits' | 'parity' | 'stop'>

export const TERMIOS_SIZE = 36
const CC = 17
const VTIME = 5
const VMIN = 6
const VSTART = 8
const VSTOP = 9
const XON = 0x11
const XOFF = 0x13

const IXON = 0o2000
const IXOFF = 0o10000
const CBAUD = 0o10017
const CS7 = 0o40
const CS8 = 0o60
const CSTOPB = 0o100
const CREAD = 0o200
const PARENB = 0o400
const PARODD = 0o1000
const CLOCAL = 0o4000
const CRTSCTS = 0o20000000000

/** The speed codes of c_cflag for the rates a printer offers. */
const BAUD_CODES: Record<number, number> = {
  1200: 0o11,
  2400: 0o13,
  4800: 0o14,
  9600: 0o15,
  19200: 0o16,
  38400: 0o17,
  57600: 0o10001,
  115200: 0o10002,
  230400: 0o10003,
}

/** The termios for `settings`, to set with TCSETS. */
export function termiosFor(settings: SerialSettings): Uint8Array {
  const code = BAUD_CODES[settings.baud]
  if (code === undefined) throw new RangeError(`no speed code for ${settings.baud} baud`)
  const bytes = new Uint8Array(TERMIOS_SIZE)
  const view = new DataView(bytes.buffer)
  const iflag = settings.flow === 'xonxoff' ? IXON | IXOFF : 0
  let cflag = code | CREAD | CLOCAL | (settings.bits === 7 ? CS7 : CS8)
  if (settings.stop === 2) cflag |= CSTOPB
  if (settings.parity !== 'none') cflag |= PARENB | (settings.parity === 'odd' ? PARODD : 0)
  if (settings.flow === 'rtscts') cflag |= CRTSCTS
  view.setUint32(0, iflag, true)
  view.setUint32(4, 0, true)
  view.setUint32(8, cflag, true)
  view.setUint32(12, 0, true)
  bytes[CC + VTIME] = 0
  bytes[CC + VMIN] = 0
  // A zero control character is "disabled": XON/XOFF need theirs named.
  bytes[CC + VSTART] = XON
  bytes[CC + VSTOP] = XOFF
  return bytes
}

/** What a termios says of a port: its speed and flow control, and whether it passes bytes unchanged. */
export function readTermios(bytes: Uint8Array): {
  baud: number | undefined
  flow: SerialSettings['flow']
  raw: boolean
} {
  const view = new DataView(bytes.buffer, bytes.byteOffset, TERMIOS_SIZE)
  const iflag = view.getUint32(0, true)
  const oflag = view.getUint32(4, true)
  const cflag = view.getUint32(8, true)
  const lflag = view.getUint32(12, true)
  const code = cflag & CBAUD
  const baud = Object.entries(BAUD_CODES).find(([, value]) => value === code)?.[0]
  const flow = cflag & CRTSCTS ? 'rtscts' : iflag & IXON ? 'xonxoff' : 'none'
  // Output processing (e.g. newline to CR LF) or canonical input would change the bytes.
  const raw = (oflag & 1) === 0 && (lflag & 0o2) === 0
  return { baud: baud === undefined ? undefined : Number(baud), flow, raw }
}
