// Finds the requests a printer answers in the byte stream as it arrives (split anywhere across
// reads): `DLE EOT n` (a real-time command: executed wherever it appears, as Epson printers do)
// and `GS ( H pL pH fn m d1 d2 d3 d4` with fn 48 (answered once the data before it is printed).

export type PrinterRequest = { kind: 'status'; n: number } | { kind: 'process-id'; id: Uint8Array }

const DLE = 0x10
const EOT = 0x04
const PROCESS_ID_PREFIX = [0x1d, 0x28, 0x48, 6, 0, 48, 48] as const
const PROCESS_ID_LENGTH = PROCESS_ID_PREFIX.length + 4

export class RequestScanner {
  /** Bytes at the end of the last read that may begin a request completed by the next one. */
  private pending = new Uint8Array(0)

  /** The requests completed by `bytes`, in order, and the job's own bytes around them. */
  scan(bytes: Uint8Array): { requests: PrinterRequest[]; data: Uint8Array } {
    const input = this.pending.length > 0 ? Uint8Array.from([...this.pending, ...bytes]) : bytes
    const requests: PrinterRequest[] = []
    const data: number[] = []
    let i = 0
    for (; i < input.length; i++) {
      if (input[i] === DLE && (i + 1 >= input.length || input[i + 1] === EOT)) {
        if (i + 2 >= input.length) break
        requests.push({ kind: 'status', n: input[i + 2]! })
        i += 2
        continue
      }
      if (input[i] === PROCESS_ID_PREFIX[0]) {
        const available = Math.min(PROCESS_ID_LENGTH, input.length - i)
        if (PROCESS_ID_PREFIX.every((byte, k) => k >= available || input[i + k] === byte)) {
          if (available < PROCESS_ID_LENGTH) break
          requests.push({ kind: 'process-id', id: input.slice(i + PROCESS_ID_PREFIX.length, i + PROCESS_ID_LENGTH) })
          i += PROCESS_ID_LENGTH - 1
          continue
        }
      }
      data.push(input[i]!)
    }
    this.pending = input.slice(i)
    return { requests, data: Uint8Array.from(data) }
  }

  /** Bytes held back as the possible start of a request the stream never finished: data after all. */
  flush(): Uint8Array {
    const rest = this.pending
    this.pending = new Uint8Array(0)
    return rest
  }
}
