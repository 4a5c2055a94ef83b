// What carries a job's bytes to a printer and the printer's answers back (a socket, a device file,
// USB bulk endpoints); printer-link.ts speaks the printer's language over it. A channel reports
// failures as values: a write resolves to why it stopped short, and a failure of the connection
// comes as an event.
import { type Failure, failure } from '../protocol/failures.ts'
import type { Stopped } from './submission.ts'

export interface Channel {
  /**
   * Writes every byte: undefined once written, or why not (cancelled when `signal` aborts first; the write is then cut
   * off).
   */
  write(bytes: Uint8Array, signal: AbortSignal): Promise<Stopped | undefined>
  /** Ends the connection once what was written is out. */
  close(): void
  /** Ends the connection at once. */
  destroy(): void
}

/** What a channel reports as it goes: bytes from the printer, and the failure that ended the connection. */
export interface ChannelEvents {
  data(bytes: Uint8Array): void
  fail(failure: Failure): void
}

/**
 * An open channel, or why it could not be opened (every failure to open is retryable unless the device is not a
 * printer).
 */
export type Opened = { ok: true; channel: Channel } | Stopped

/** Opens a connection to the printer. */
export type OpenChannel = (events: ChannelEvents, signal: AbortSignal) => Promise<Opened>

/** What a channel or link closed on purpose answers to anything asked of it after. */
export const CLOSED: Failure = Object.freeze(failure('printer.unreachable', 'closed'))
