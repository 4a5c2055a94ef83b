// tcp://host:9100: a raw socket, one connection per job (some printers stall while a socket stays
// open); the printer answers status requests on the same socket.
import type { Channel, ChannelEvents, OpenChannel } from './printer-link.ts'
import { cancelled, SubmitError } from './submit-error.ts'

export const TCP_CONNECT_TIMEOUT_MS = 5_000
export const TCP_WRITE_TIMEOUT_MS = 15_000

export function tcpChannel(host: string, port: number): OpenChannel {
  return (events, signal) => TcpChannel.open(host, port, events, signal)
}

type Socket = Awaited<ReturnType<typeof Bun.connect>>

class TcpChannel implements Channel {
  private socket: Socket | undefined
  private pendingWrite: { bytes: Uint8Array; offset: number; resolve: () => void } | undefined
  private failure: SubmitError | undefined
  private onFailure: ((error: SubmitError) => void) | undefined

  private constructor(
    private readonly where: string,
    private readonly events: ChannelEvents,
  ) {}

  static async open(host: string, port: number, events: ChannelEvents, signal: AbortSignal): Promise<TcpChannel> {
    if (signal.aborted) throw cancelled()
    const where = `${host}:${port}`
    const channel = new TcpChannel(where, events)
    let timer: Timer | undefined
    let connecting: Promise<Socket> | undefined
    try {
      connecting = Bun.connect({
        hostname: host,
        port,
        socket: {
          drain: () => channel.pump(),
          data: (_socket, data) => events.data(data),
          error: (_socket, error) => channel.fail(new SubmitError('printer.unreachable', `The connection to ${where} failed: ${error.message}`, true)),
          end: () => channel.fail(new SubmitError('printer.unreachable', `The printer at ${where} closed the connection.`, true)),
          close: () => channel.fail(new SubmitError('printer.unreachable', `The printer at ${where} closed the connection.`, true)),
        },
      })
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new SubmitError('printer.unreachable', `No connection to ${where} within ${TCP_CONNECT_TIMEOUT_MS / 1000} s.`, true)), TCP_CONNECT_TIMEOUT_MS)
      })
      channel.socket = await Promise.race([connecting, timeout])
      return channel
    } catch (error) {
      channel.destroy()
      // A connection that comes after the timeout is closed at once.
      void connecting?.then((socket) => socket.terminate(), () => {})
      if (error instanceof SubmitError) throw error
      throw new SubmitError('printer.unreachable', `Cannot connect to ${where}: ${(error as Error).message}`, true)
    } finally {
      clearTimeout(timer)
    }
  }

  /** Writes every byte within the write timeout, or fails (cancelled when `signal` aborts first). */
  write(bytes: Uint8Array, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(cancelled())
    if (this.failure) return Promise.reject(this.failure)
    // Most jobs fit the socket's buffer at once: no timer or listener needed then.
    const written = this.socket ? this.socket.write(bytes) : 0
    if (written === bytes.length) return Promise.resolve()
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new SubmitError('printer.timeout', `The printer at ${this.where} did not take the job within ${TCP_WRITE_TIMEOUT_MS / 1000} s.`, true)), TCP_WRITE_TIMEOUT_MS)
      const onAbort = () => this.fail(cancelled())
      signal.addEventListener('abort', onAbort, { once: true })
      const done = () => {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        this.onFailure = undefined
      }
      this.onFailure = (error) => {
        done()
        reject(error)
      }
      if (this.failure) return this.onFailure(this.failure)
      this.pendingWrite = {
        bytes,
        offset: Math.max(0, written),
        resolve: () => {
          done()
          resolve()
        },
      }
      this.pump()
    })
  }

  close(): void {
    this.onFailure = undefined
    this.failure ??= new SubmitError('printer.unreachable', 'closed', true)
    this.socket?.end()
  }

  destroy(): void {
    this.onFailure = undefined
    this.failure ??= new SubmitError('printer.unreachable', 'closed', true)
    this.socket?.terminate()
  }

  private pump(): void {
    const write = this.pendingWrite
    if (!write || !this.socket) return
    while (write.offset < write.bytes.length) {
      const written = this.socket.write(write.bytes.subarray(write.offset))
      if (written <= 0) return
      write.offset += written
    }
    this.pendingWrite = undefined
    write.resolve()
  }

  private fail(error: SubmitError): void {
    if (this.failure) return
    this.failure = error
    this.socket?.terminate()
    this.onFailure?.(error)
    this.events.fail(error)
  }
}
