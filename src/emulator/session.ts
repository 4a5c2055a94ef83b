// One connection to the emulated printer (a socket, or the host having the serial port open):
// one receipt.
import { RequestScanner } from './request-scanner.ts'

export class Session {
  readonly chunks: Uint8Array[] = []
  readonly scanner = new RequestScanner()
  /** Data came while the printer could not print. */
  held = false
  /** Bytes dropped because the receive buffer was full. */
  lost = 0
  /** When the job's first and last bytes came (performance.now()), for latency and throughput figures. */
  firstByteAt = 0
  lastByteAt = 0
  /** Process IDs asked for, answered once what came before them is printed. */
  readonly processIds: Uint8Array[] = []
}
