// The emulator's serial port: a pseudo-terminal, whose other end the host opens as it would a
// printer's serial port. A pty has no wire and no modem lines, so the line plays both: it takes
// bytes from the host no faster than the line rate, into a receive buffer that printing empties
// at the print rate, and drops what comes while that buffer is full. Whether the host holds back
// when the printer says stop (CTS low, or XOFF sent) is read off the host's own settings of the
// port, which is what decides it on a real line: the kernel's serial driver stops sending then.
import { closeSync, constants, openSync, readSync, rmSync, symlinkSync, writeSync } from 'node:fs'
import { ioctl, openPty, TCGETS, TCSETS } from '../transports/libc.ts'
import { readTermios, TERMIOS_SIZE, termiosFor } from '../transports/termios.ts'
import type { PrinterEmulator } from './emulator.ts'
import { Session } from './session.ts'

export interface SerialLineOptions {
  /** A symbolic link to create to the port (as /tmp/printer0), replacing one that is there. */
  link?: string
  /** The line rate in bits per second (10 bits a byte); unlimited when left out. */
  baud?: number
  /** The receive buffer in bytes (default 4096). */
  buffer?: number
  /** How fast printing empties the buffer, in bytes per second; at once when left out. */
  printRate?: number
  /** The printer's flow control (default rtscts). */
  flow?: 'rtscts' | 'xonxoff' | 'none'
}

const TICK_MS = 5
const XON = 0x11
const XOFF = 0x13

export class SerialLine {
  readonly path: string
  private readonly master: number
  /** The pty's own name (/dev/pts/N), where `path` may be a link to it. */
  private readonly pty: string
  private readonly timer: Timer
  private session: Session | undefined
  /** How the host set its port up, read when its connection starts. */
  private hostFlow: 'rtscts' | 'xonxoff' | 'none' = 'none'
  private buffered = 0
  private budget = 0
  private xoffSent = false
  private last = performance.now()
  private readonly readBuffer = new Uint8Array(65536)
  private closed = false

  constructor(
    private readonly options: SerialLineOptions,
    private readonly printer: PrinterEmulator,
  ) {
    const pty = openPty(constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK)
    this.master = pty.master
    this.pty = pty.path
    this.path = pty.path
    // Raw from the start, as a printer's port is: a host that writes without setting the port up
    // (usblp is not a tty) gets its bytes through unchanged.
    this.configure(termiosFor({ baud: 9600, flow: 'none', bits: 8, parity: 'none', stop: 1 }))
    if (options.link) {
      rmSync(options.link, { force: true })
      symlinkSync(pty.path, options.link)
      this.path = options.link
    }
    this.timer = setInterval(() => this.tick(), TICK_MS)
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    clearInterval(this.timer)
    if (this.session) this.printer.finish(this.session)
    closeSync(this.master)
    if (this.options.link) rmSync(this.options.link, { force: true })
  }

  private get capacity(): number {
    return this.options.buffer ?? 4096
  }

  private tick(): void {
    const now = performance.now()
    const seconds = (now - this.last) / 1000
    this.last = now
    const { baud, printRate } = this.options
    // Bytes the line could carry since the last tick (at most 50 ms worth saved up).
    this.budget = baud === undefined ? 65536 : Math.min(this.budget + (seconds * baud) / 10, Math.max(16, baud / 200))
    // A printer that cannot print keeps what it has.
    if (this.printer.canPrint)
      this.buffered = printRate === undefined ? 0 : Math.max(0, this.buffered - seconds * printRate)
    this.signalFlow()
    const allowed = this.allowance()
    const taken = allowed > 0 ? this.take(allowed) : 0
    // A line that carried less than it could (nothing to send, or told to stop) saves nothing for later.
    this.budget = taken < Math.floor(this.budget) ? 0 : this.budget - taken
    if (this.session && this.buffered === 0) this.printer.answerProcessIds(this.session, (bytes) => this.reply(bytes))
  }

  /** XOFF when the buffer is half full (room for what is on its way), XON when it is down to a quarter. */
  private signalFlow(): void {
    if (this.options.flow !== 'xonxoff' || !this.session) return
    if (!this.xoffSent && this.buffered >= this.capacity / 2) {
      this.xoffSent = true
      this.reply(Uint8Array.of(XOFF))
    } else if (this.xoffSent && this.buffered <= this.capacity / 4) {
      this.xoffSent = false
      this.reply(Uint8Array.of(XON))
    }
  }

  /**
   * How many bytes the line brings now: what it can carry, unless the printer says stop and the
   * host's port is set to listen (CTS is low while the buffer is full; nothing after XOFF). The
   * first byte of a connection comes alone, so the host's settings are known before the rest.
   */
  private allowance(): number {
    const carried = Math.floor(this.budget)
    if (!this.session) return Math.min(carried, 1)
    const flow = this.options.flow ?? 'rtscts'
    if (flow === 'rtscts' && this.hostFlow === 'rtscts')
      return Math.min(carried, Math.max(0, Math.floor(this.capacity - this.buffered)))
    if (flow === 'xonxoff' && this.hostFlow === 'xonxoff' && this.xoffSent) return 0
    return carried
  }

  /** Reads up to `count` bytes off the line into the printer; how many came. */
  private take(count: number): number {
    const bytes = this.readBuffer.subarray(0, Math.min(count, this.readBuffer.length))
    let read = 0
    try {
      read = readSync(this.master, bytes)
    } catch (error) {
      // EIO: the host closed its end (or never opened it): its connection is over.
      if ((error as NodeJS.ErrnoException).code === 'EIO') this.end()
    }
    if (read === 0) return 0
    if (!this.session) this.start()
    const session = this.session!
    // With no print rate, printing keeps up with any line: nothing waits in the buffer.
    const drainsAtOnce = this.options.printRate === undefined && this.printer.canPrint
    const kept = drainsAtOnce ? read : Math.min(read, Math.max(0, Math.floor(this.capacity - this.buffered)))
    session.lost += read - kept
    if (!drainsAtOnce) this.buffered += kept
    this.printer.receive(session, bytes.subarray(0, kept), (reply) => this.reply(reply))
    return read
  }

  private start(): void {
    this.session = new Session()
    this.xoffSent = false
    this.hostFlow = this.readHostFlow()
  }

  private end(): void {
    if (!this.session) return
    if (this.buffered > 0 && this.options.printRate !== undefined) return
    this.printer.finish(this.session)
    this.session = undefined
    this.buffered = 0
  }

  private readHostFlow(): 'rtscts' | 'xonxoff' | 'none' {
    const termios = new Uint8Array(TERMIOS_SIZE)
    try {
      this.onPort((fd) => ioctl(fd, TCGETS, termios, 'TCGETS'))
      return readTermios(termios).flow
    } catch {
      return 'none'
    }
  }

  private configure(termios: Uint8Array): void {
    this.onPort((fd) => ioctl(fd, TCSETS, termios, 'TCSETS'))
  }

  /** Runs `work` on the host's end of the pty, opened for the moment. */
  private onPort(work: (fd: number) => void): void {
    const fd = openSync(this.pty, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK)
    try {
      work(fd)
    } finally {
      closeSync(fd)
    }
  }

  private reply(bytes: Uint8Array): void {
    try {
      writeSync(this.master, bytes)
    } catch {
      // The host is not there to hear it.
    }
  }
}
