// A printer behind a device file: a serial port (/dev/ttyUSB0, /dev/ttyAMA0, ...) or a USB printer
// the kernel's usblp driver presents (/dev/usb/lp0). Opened non-blocking, so a printer that holds
// back (flow control, a full buffer) never stalls the process: writes go in as the kernel takes
// them, and what the printer answers is read by polling, as node:fs has no watcher for a tty.
import { closeSync, constants, openSync, readSync, writeSync } from 'node:fs'
import { ioctlInt, ioctlWith, TCFLSH, TCOFLUSH, TIOCOUTQ } from './libc.ts'
import type { Channel, ChannelEvents } from './printer-link.ts'
import { cancelled, SubmitError } from './submit-error.ts'

/** How long a printer may take no byte before the job fails. */
export const DEVICE_WRITE_TIMEOUT_MS = 15_000
/** How often the device is read, and a held-back write retried. */
const POLL_MS = 5
/** How long the bytes written may take to leave the serial port before it is closed anyway. */
const DRAIN_TIMEOUT_MS = 30_000

/**
 * How to know the last bytes left the host before closing (closing earlier would block the
 * process, or drop them): a serial port counts what it has not sent; usblp takes a write only once
 * the one before it completed, so a harmless status request after the job proves the job is out.
 */
export type DrainBy = 'output-queue' | 'next-write'

const DRAIN_REQUEST = Uint8Array.of(0x10, 0x04, 0x01)

export class DeviceChannel implements Channel {
  private failure: SubmitError | undefined
  private reader: Timer | undefined
  private closed = false
  private readonly readBuffer = new Uint8Array(512)

  private constructor(
    private readonly fd: number,
    private readonly where: string,
    private readonly events: ChannelEvents,
    private readonly drainBy: DrainBy,
  ) {
    this.reader = setInterval(() => this.read(), POLL_MS)
  }

  /** Opens the device; `configure` sets it up (a serial port's speed and flow control). */
  static open(path: string, events: ChannelEvents, drainBy: DrainBy, configure?: (fd: number) => void): DeviceChannel {
    let fd: number
    try {
      fd = openSync(path, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK)
    } catch (error) {
      throw openError(path, error as NodeJS.ErrnoException)
    }
    try {
      configure?.(fd)
      discardInput(fd)
    } catch (error) {
      closeSync(fd)
      throw new SubmitError('printer.unreachable', `Cannot set up ${path}: ${(error as Error).message}`, true)
    }
    return new DeviceChannel(fd, path, events, drainBy)
  }

  async write(bytes: Uint8Array, signal: AbortSignal): Promise<void> {
    let offset = 0
    let progress = Date.now()
    while (offset < bytes.length) {
      if (signal.aborted) throw cancelled()
      if (this.failure) throw this.failure
      const written = this.tryWrite(bytes.subarray(offset))
      if (written > 0) {
        offset += written
        progress = Date.now()
        continue
      }
      if (Date.now() - progress > DEVICE_WRITE_TIMEOUT_MS) {
        throw this.fail(new SubmitError('printer.timeout', `The printer at ${this.where} took nothing for ${DEVICE_WRITE_TIMEOUT_MS / 1000} s.`, true))
      }
      await Bun.sleep(POLL_MS)
    }
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    void this.drain().finally(() => this.release())
  }

  destroy(): void {
    if (this.closed) return
    this.closed = true
    // What was not sent is dropped: closing a serial port waits for it otherwise.
    if (this.drainBy === 'output-queue') {
      try {
        ioctlWith(this.fd, TCFLSH, TCOFLUSH, 'TCFLSH')
      } catch {
        // Gone with the device.
      }
    }
    this.release()
  }

  private async drain(): Promise<void> {
    const deadline = Date.now() + DRAIN_TIMEOUT_MS
    const signal = AbortSignal.timeout(DRAIN_TIMEOUT_MS)
    if (this.drainBy === 'next-write') {
      await this.write(DRAIN_REQUEST, signal).catch(() => {})
      return
    }
    while (Date.now() < deadline && !this.failure) {
      try {
        if (ioctlInt(this.fd, TIOCOUTQ, 'TIOCOUTQ') === 0) return
      } catch {
        return
      }
      await Bun.sleep(POLL_MS)
    }
  }

  private release(): void {
    clearInterval(this.reader)
    this.failure ??= new SubmitError('printer.unreachable', 'closed', true)
    try {
      closeSync(this.fd)
    } catch {
      // Already gone with the device.
    }
  }

  /** Bytes the kernel took now: 0 when the printer holds back. */
  private tryWrite(bytes: Uint8Array): number {
    try {
      return writeSync(this.fd, bytes)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return 0
      throw this.fail(gone(this.where, error as NodeJS.ErrnoException))
    }
  }

  private read(): void {
    for (;;) {
      let count: number
      try {
        count = readSync(this.fd, this.readBuffer)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'EAGAIN') return
        // A usblp printer that sends nothing back refuses reads: it is write-only, not gone.
        if (code === 'EINVAL' || code === 'EOPNOTSUPP') return clearInterval(this.reader)
        this.fail(gone(this.where, error as NodeJS.ErrnoException))
        return
      }
      if (count === 0) return
      this.events.data(this.readBuffer.slice(0, count))
    }
  }

  private fail(error: SubmitError): SubmitError {
    if (this.failure) return this.failure
    this.failure = error
    clearInterval(this.reader)
    this.events.fail(error)
    return error
  }
}

/** Answers the printer sent before this job are not answers to its requests. */
function discardInput(fd: number): void {
  const buffer = new Uint8Array(512)
  for (;;) {
    try {
      if (readSync(fd, buffer) <= 0) return
    } catch {
      return
    }
  }
}

function openError(path: string, error: NodeJS.ErrnoException): SubmitError {
  switch (error.code) {
    case 'ENOENT':
    case 'ENODEV':
    case 'ENXIO':
      return new SubmitError('printer.unreachable', `There is no printer at ${path} (unplugged or switched off?).`, true)
    case 'EACCES':
    case 'EPERM':
      return new SubmitError('printer.unreachable', `printhub may not open ${path}: add its user to the group that owns it (dialout for serial ports, lp for USB printers).`, true)
    case 'EBUSY':
      return new SubmitError('printer.unreachable', `${path} is in use by another program.`, true)
    default:
      return new SubmitError('printer.unreachable', `Cannot open ${path}: ${error.code ?? error.message}`, true)
  }
}

const gone = (where: string, error: NodeJS.ErrnoException) => new SubmitError('printer.unreachable', `The printer at ${where} went away (${error.code ?? error.message}): unplugged or switched off?`, true)
