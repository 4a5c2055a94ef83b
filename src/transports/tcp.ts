// tcp://host:9100: a raw socket, one connection per job (some printers stall while a socket stays
// open); the printer answers status requests on the same socket.
import { type Failure, failure } from '../protocol/failures.ts'
import { type Channel, type ChannelEvents, CLOSED, type OpenChannel, type Opened } from './channel.ts'
import { CANCELLED, refused, type Stopped } from './submission.ts'

export const TCP_CONNECT_TIMEOUT_MS = 5_000
export const TCP_WRITE_TIMEOUT_MS = 15_000

export function tcpChannel(host: string, port: number): OpenChannel {
  return (events, signal) => TcpChannel.open(host, port, events, signal)
}

type Socket = Awaited<ReturnType<typeof Bun.connect>>

/** A write the socket's buffer could not take at once: the rest goes as the socket drains. */
interface PendingWrite {
  bytes: Uint8Array
  offset: number
  settle(result: Stopped | undefined): void
}

class TcpChannel implements Channel {
  private socket: Socket | undefined
  private pending: PendingWrite | undefined
  private failure: Failure | undefined

  private constructor(
    private readonly where: string,
    private readonly events: ChannelEvents,
  ) {}

  static async open(host: string, port: number, events: ChannelEvents, signal: AbortSignal): Promise<Opened> {
    if (signal.aborted) return CANCELLED
    const where = `${host}:${port}`
    const channel = new TcpChannel(where, events)
    let timer: Timer | undefined
    let connecting: Promise<Socket> | undefined
    let reason: Failure
    try {
      connecting = Bun.connect({
        hostname: host,
        port,
        socket: {
          drain: () => channel.pump(),
          data: (_socket, data) => events.data(data),
          error: (_socket, error) =>
            channel.fail(failure('printer.unreachable', `The connection to ${where} failed: ${error.message}`)),
          end: () => channel.fail(failure('printer.unreachable', `The printer at ${where} closed the connection.`)),
          close: () => channel.fail(failure('printer.unreachable', `The printer at ${where} closed the connection.`)),
        },
      })
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), TCP_CONNECT_TIMEOUT_MS)
      })
      const socket = await Promise.race([connecting, timeout])
      if (socket) {
        channel.socket = socket
        return { ok: true, channel }
      }
      reason = failure('printer.unreachable', `No connection to ${where} within ${TCP_CONNECT_TIMEOUT_MS / 1000} s.`)
    } catch (error) {
      reason = failure('printer.unreachable', `Cannot connect to ${where}: ${(error as Error).message}`)
    } finally {
      clearTimeout(timer)
    }
    channel.destroy()
    // A connection that comes after the timeout is closed at once.
    void connecting?.then(
      (socket) => socket.terminate(),
      () => {},
    )
    return refused(reason)
  }

  /** Writes every byte within the write timeout; a write that times out or is cancelled cuts the connection. */
  write(bytes: Uint8Array, signal: AbortSignal): Promise<Stopped | undefined> {
    if (signal.aborted) return Promise.resolve(CANCELLED)
    if (this.failure) return Promise.resolve(refused(this.failure))
    // Most jobs fit the socket's buffer at once: no timer or listener needed then.
    const written = this.socket ? this.socket.write(bytes) : 0
    if (written === bytes.length) return Promise.resolve(undefined)
    return new Promise((resolve) => {
      const timer = setTimeout(
        () =>
          this.fail(
            failure(
              'printer.timeout',
              `The printer at ${this.where} did not take the job within ${TCP_WRITE_TIMEOUT_MS / 1000} s.`,
            ),
          ),
        TCP_WRITE_TIMEOUT_MS,
      )
      const onAbort = () => this.cut(CLOSED, CANCELLED)
      signal.addEventListener('abort', onAbort, { once: true })
      this.pending = {
        bytes,
        offset: Math.max(0, written),
        settle: (result) => {
          clearTimeout(timer)
          signal.removeEventListener('abort', onAbort)
          this.pending = undefined
          resolve(result)
        },
      }
      this.pump()
    })
  }

  close(): void {
    this.failure ??= CLOSED
    this.pending?.settle(refused(CLOSED))
    this.socket?.end()
  }

  destroy(): void {
    this.cut(CLOSED, refused(CLOSED))
  }

  private pump(): void {
    const write = this.pending
    if (!write || !this.socket) return
    while (write.offset < write.bytes.length) {
      const written = this.socket.write(write.bytes.subarray(write.offset))
      if (written <= 0) return
      write.offset += written
    }
    write.settle(undefined)
  }

  /** The connection failed (or a write timed out): it is cut, and the link told. */
  private fail(reason: Failure): void {
    if (this.failure) return
    this.cut(reason, refused(reason))
    this.events.fail(reason)
  }

  /** Cuts the connection at once; a write in progress ends as `result`. */
  private cut(reason: Failure, result: Stopped): void {
    this.failure ??= reason
    this.socket?.terminate()
    this.pending?.settle(result)
  }
}
