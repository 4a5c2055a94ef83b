// A network receipt printer in software (raw TCP, as on port 9100): it answers status requests as
// an Epson TM printer does, reads every job with the receipt preview, and keeps the receipts (in
// memory, and as .bin, .txt and .png files when given a directory). Tests use it, and it lets
// anyone try printhub with no printer. Its replies are written from Epson's reference apart from
// the transports' reading of them, so that each checks the other.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type PrinterPreview, previewFor } from '../preview/preview.ts'
import type { PrinterProfile } from '../profiles/profile.ts'
import type { PaperWidth } from '../protocol/document.ts'
import { type PrinterState, processIdResponse, realtimeStatus } from './epson-replies.ts'
import { RequestScanner } from './request-scanner.ts'

export interface EmulatedReceipt {
  /** 1, 2, 3... in the order the connections ended. */
  number: number
  /** The job's bytes: what the connection brought, without the requests the printer answered. */
  bytes: Uint8Array
  at: number
  preview: PrinterPreview
  /**
   * The printer could not print when the job came (no paper, cover open, error): a real one
   * keeps such a job in its buffer and prints it once it can, whatever the hub decided since.
   */
  held: boolean
}

export interface EmulatorOptions {
  hostname: string
  port: number
  profile: PrinterProfile
  width: PaperWidth
  /** A directory to keep each receipt in as NNNN.bin, NNNN.txt and NNNN.png. */
  store?: string
  state?: Partial<PrinterState>
  onReceipt?: (receipt: EmulatedReceipt) => void
}

interface Connection {
  chunks: Uint8Array[]
  scanner: RequestScanner
  held: boolean
}

export class PrinterEmulator {
  readonly receipts: EmulatedReceipt[] = []
  private state: PrinterState
  private readonly server: Bun.TCPSocketListener<Connection>

  private constructor(private readonly options: EmulatorOptions) {
    this.state = { paper: 'ok', coverOpen: false, error: false, ...options.state }
    if (options.store) mkdirSync(options.store, { recursive: true })
    this.server = Bun.listen<Connection>({
      hostname: options.hostname,
      port: options.port,
      socket: {
        open: (socket) => {
          socket.data = { chunks: [], scanner: new RequestScanner(), held: false }
        },
        data: (socket, bytes) => this.receive(socket, bytes),
        close: (socket) => this.finish(socket.data),
        error: () => {},
      },
    })
  }

  static listen(options: EmulatorOptions): PrinterEmulator {
    return new PrinterEmulator(options)
  }

  get port(): number {
    return this.server.port
  }

  get printerState(): Readonly<PrinterState> {
    return this.state
  }

  /** Changes the state, as opening the cover or running out of paper does. */
  set(state: Partial<PrinterState>): void {
    this.state = { ...this.state, ...state }
  }

  stop(): void {
    this.server.stop(true)
  }

  private get canPrint(): boolean {
    return this.state.paper !== 'out' && !this.state.coverOpen && !this.state.error
  }

  private receive(socket: { data: Connection; write(bytes: Uint8Array): number }, bytes: Uint8Array): void {
    const connection = socket.data
    const { requests, data } = connection.scanner.scan(bytes)
    if (data.length > 0) {
      connection.chunks.push(data)
      if (!this.canPrint) connection.held = true
    }
    for (const request of requests) {
      if (request.kind === 'status') {
        const status = realtimeStatus(request.n, this.state)
        if (status !== undefined) socket.write(Uint8Array.of(status))
      } else if (this.canPrint) {
        // Everything before it is printed by now; a printer that cannot print does not answer.
        socket.write(processIdResponse(request.id))
      }
    }
  }

  private finish(connection: Connection): void {
    connection.chunks.push(connection.scanner.flush())
    const length = connection.chunks.reduce((sum, chunk) => sum + chunk.length, 0)
    // A connection that only asked for the status leaves no receipt.
    if (length === 0) return
    const bytes = new Uint8Array(length)
    let offset = 0
    for (const chunk of connection.chunks) {
      bytes.set(chunk, offset)
      offset += chunk.length
    }
    const { profile, width } = this.options
    const receipt: EmulatedReceipt = { number: this.receipts.length + 1, bytes, at: Date.now(), preview: previewFor(bytes, profile, width), held: connection.held }
    this.receipts.push(receipt)
    if (this.options.store) {
      const name = join(this.options.store, String(receipt.number).padStart(4, '0'))
      writeFileSync(`${name}.bin`, bytes)
      writeFileSync(`${name}.txt`, `${receipt.preview.text.join('\n')}\n`)
      writeFileSync(`${name}.png`, receipt.preview.png())
    }
    this.options.onReceipt?.(receipt)
  }
}
