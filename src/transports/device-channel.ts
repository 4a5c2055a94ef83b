// A printer behind a device file: a serial port (/dev/ttyUSB0, /dev/ttyAMA0, ...) or a USB printer
// the kernel's usblp driver presents (/dev/usb/lp0). Opened non-blocking, so a printer that holds
// back (flow control, a full buffer) never stalls the process: writes go in as the kernel takes
// them, and what the printer answers is read by polling, as node:fs has no watcher for a tty.
import { closeSync, constants, openSync, readSync, writeSync } from 'node:fs'
import { ioctlInt, ioctlWith, TCFLSH, TCOFLUSH, TIOCOUTQ } from './libc.ts'
import { type Failure, failure } from '../protocol/failures.ts'
import { type Channel, type ChannelEvents, CLOSED, type Opened } from './channel.ts'
import { CANCELLED, refused, type Stopped } from './submission.ts'

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
  private failure: Failure | undefined
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
  static open(path: string, events: ChannelEvents, drainBy: DrainBy, configure?: (fd: number) => void): Opened {
    let fd: number
    try {
      fd = openSync(path, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK)
    } catch (error) {
      return refused(openError(path, error as NodeJS.ErrnoException))
    }
    try {
      configure?.(fd)
      discardInput(fd)
    } catch (error) {
      closeSync(fd)
      return refused(failure('printer.unreachable', `Cannot set up ${path}: ${(error as Error).message}`))
    }
    return { ok: true, channel: new DeviceChannel(fd, path, events, drainBy) }
  }

  /**
   * Writes as the kernel takes the bytes; a printer that takes none for DEVICE_WRITE_TIMEOUT_MS fails the write
   * (destroy() then drops the rest).
   */
  async write(bytes: Uint8Array, signal: AbortSignal): Promise<Stopped | undefined> {
    let offset = 0
    let progress = Date.now()
    while (offset < bytes.length) {
      if (signal.aborted) return CANCELLED
      if (this.failure) return refused(this.failure)
      const written = this.tryWrite(bytes.subarray(offset))
      if (typeof written !== 'number') return refused(written)
      if (written > 0) {
        offset += written
        progress = Date.now()
        continue
      }
      if (Date.now() - progress > DEVICE_WRITE_TIMEOUT_MS) {
        return refused(
          this.fail(
            failure(
              'printer.timeout',
              `The printer at ${this.where} took nothing for ${DEVICE_WRITE_TIMEOUT_MS / 1000} s.`,
            ),
          ),
        )
      }
      await Bun.sleep(POLL_MS)
    }
    return undefined
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
      await this.write(DRAIN_REQUEST, signal)
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
    this.failure ??= CLOSED
    try {
      closeSync(this.fd)
    } catch {
      // Already gone with the device.
    }
  }

  /** Bytes the kernel took now: 0 when the printer holds back; the failure when it went away. */
  private tryWrite(bytes: Uint8Array): number | Failure {
    try {
      return writeSync(this.fd, bytes)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return 0
      return this.fail(gone(this.where, error as NodeJS.ErrnoException))
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

  private fail(reason: Failure): Failure {
    if (this.failure) return this.failure
    this.failure = reason
    clearInterval(this.reader)
    this.events.fail(reason)
    return reason
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

function openError(path: string, error: NodeJS.ErrnoException): Failure {
  switch (error.code) {
    case 'ENOENT':
    case 'ENODEV':
    case 'ENXIO':
      return failure('printer.unreachable', `There is no printer at ${path} (unplugged or switched off?).`)
    case 'EACCES':
    case 'EPERM':
      return failure(
        'printer.unreachable',
        `printhub may not open ${path}: add its user to the group that owns it ` +
          `(dialout for serial ports, lp for USB printers).`,
      )
    case 'EBUSY':
      return failure('printer.unreachable', `${path} is in use by another program.`)
    default:
      return failure('printer.unreachable', `Cannot open ${path}: ${error.code ?? error.message}`)
  }
}

const gone = (where: string, error: NodeJS.ErrnoException) =>
  failure(
    'printer.unreachable',
    `The printer at ${where} went away (${error.code ?? error.message}): unplugged or switched off?`,
  )
