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

  /** The requests completed by `bytes`, in order. */
  scan(bytes: Uint8Array): PrinterRequest[] {
    const data = this.pending.length > 0 ? Uint8Array.from([...this.pending, ...bytes]) : bytes
    const requests: PrinterRequest[] = []
    let i = 0
    for (; i < data.length; i++) {
      if (data[i] === DLE) {
        if (i + 2 >= data.length) break
        if (data[i + 1] === EOT) {
          requests.push({ kind: 'status', n: data[i + 2]! })
          i += 2
        }
      } else if (data[i] === PROCESS_ID_PREFIX[0]) {
        const available = Math.min(PROCESS_ID_LENGTH, data.length - i)
        const matches = PROCESS_ID_PREFIX.every((byte, k) => k >= available || data[i + k] === byte)
        if (!matches) continue
        if (available < PROCESS_ID_LENGTH) break
        requests.push({ kind: 'process-id', id: data.slice(i + PROCESS_ID_PREFIX.length, i + PROCESS_ID_LENGTH) })
        i += PROCESS_ID_LENGTH - 1
      }
    }
    this.pending = data.slice(i)
    return requests
  }
}
