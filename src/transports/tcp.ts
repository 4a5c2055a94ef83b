// tcp://host:9100, raw: connect, write every byte, close (some printers stall while a socket
// stays open). Bounded: 5 s to connect, 15 s to write.
import { cancelled, SubmitError } from './submit-error.ts'

export const TCP_CONNECT_TIMEOUT_MS = 5_000
export const TCP_WRITE_TIMEOUT_MS = 15_000

export async function submitToTcp(host: string, port: number, bytes: Uint8Array, signal: AbortSignal): Promise<void> {
  const where = `${host}:${port}`
  let settle!: { resolve: () => void; reject: (error: SubmitError) => void }
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }))
  let connected = false
  let offset = 0
  const timer = setTimeout(
    () => fail(connected ? new SubmitError('printer_timeout', `The printer at ${where} did not take the job within ${TCP_WRITE_TIMEOUT_MS / 1000} s.`, true) : new SubmitError('printer_unreachable', `No connection to ${where} within ${TCP_CONNECT_TIMEOUT_MS / 1000} s.`, true)),
    TCP_CONNECT_TIMEOUT_MS,
  )
  let socket: Awaited<ReturnType<typeof Bun.connect>> | undefined
  function fail(error: SubmitError): void {
    clearTimeout(timer)
    socket?.terminate()
    settle.reject(error)
  }
  function pump(s: NonNullable<typeof socket>): void {
    while (offset < bytes.length) {
      const written = s.write(bytes.subarray(offset))
      if (written <= 0) return
      offset += written
    }
    clearTimeout(timer)
    s.end()
    settle.resolve()
  }
  const onAbort = () => fail(cancelled())
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    socket = await Bun.connect({
      hostname: host,
      port,
      socket: {
        open(s) {
          connected = true
          timer.refresh()
          pump(s)
        },
        drain: (s) => pump(s),
        data() {},
        error: (_s, error) => fail(new SubmitError('printer_unreachable', `The connection to ${where} failed: ${error.message}`, true)),
        close() {
          if (offset < bytes.length) fail(new SubmitError('printer_unreachable', `The printer at ${where} closed the connection before it took the job.`, true))
        },
      },
    })
    await done
  } catch (error) {
    clearTimeout(timer)
    if (error instanceof SubmitError) throw error
    throw new SubmitError('printer_unreachable', `Cannot connect to ${where}: ${(error as Error).message}`, true)
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}
