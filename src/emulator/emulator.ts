// A receipt printer in software, on the network (raw TCP, as on port 9100) or on a serial line (a
// pseudo-terminal standing in for the cable): it answers status requests as an Epson TM printer
// does, reads every job with the receipt preview, and keeps the receipts (in memory, and as .bin,
// .txt and .png files when given a directory). Tests use it, and it lets anyone try printhub with
// no printer. Its replies are written from Epson's reference apart from the transports' reading of
// them, so that each checks the other.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type PrinterPreview, previewFor } from '../preview/preview.ts'
import type { PrinterProfile } from '../profiles/profile.ts'
import type { PaperWidth } from '../protocol/document.ts'
import { type PrinterState, processIdResponse, realtimeStatus } from './epson-replies.ts'
import { SerialLine, type SerialLineOptions } from './serial-line.ts'
import { Session } from './session.ts'

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
  /** Bytes that came while the receive buffer was full and were dropped (a serial line without flow control). */
  lost: number
  /** When the job's first and last bytes came (performance.now()). */
  firstByteAt: number
  lastByteAt: number
}

/**
 * What an emulator remembers, in memory and in its directory: the newest receipts, at most this
 * many and this many bytes of jobs, so one left running for weeks neither fills the memory nor the disk.
 */
export const EMULATOR_KEEP = { receipts: 1_000, bytes: 64 * 1024 * 1024 } as const

export interface EmulatorOptions {
  profile: PrinterProfile
  width: PaperWidth
  /** A directory to keep each receipt in as NNNN.bin, NNNN.txt and NNNN.png. */
  store?: string
  state?: Partial<PrinterState>
  onReceipt?: (receipt: EmulatedReceipt) => void
  keep?: { receipts: number; bytes: number }
  /**
   * How long it takes to print a job before it confirms it (answers its process ID request), as a real printer's time
   * on paper; at once when not given.
   */
  printMs?: number
}

export class PrinterEmulator {
  /** The newest receipts, oldest first (see EMULATOR_KEEP). */
  readonly receipts: EmulatedReceipt[] = []
  private received = 0
  private keptBytes = 0
  private state: PrinterState
  private server: Bun.TCPSocketListener<Session> | undefined
  /** Connections open now (TCP): a ticket is filed among the receipts when its connection closes. */
  private connections = 0
  private line: SerialLine | undefined

  /** How long printing a job takes before it is confirmed (`EmulatorOptions.printMs`; `printTakes`). */
  private printMs: number | undefined

  private constructor(private readonly options: EmulatorOptions) {
    this.state = { paper: 'ok', coverOpen: false, error: false, offline: false, ...options.state }
    this.printMs = options.printMs
    if (options.store) mkdirSync(options.store, { recursive: true })
  }

  /** A network printer at `hostname:port` (0: any free port). */
  static listen(options: EmulatorOptions & { hostname: string; port: number }): PrinterEmulator {
    const emulator = new PrinterEmulator(options)
    emulator.server = Bun.listen<Session>({
      hostname: options.hostname,
      port: options.port,
      socket: {
        open: (socket) => {
          socket.data = new Session()
          emulator.connections++
        },
        data: (socket, bytes) => {
          emulator.receive(socket.data, bytes, (reply) => socket.write(reply))
          emulator.answerProcessIds(socket.data, (reply) => socket.write(reply))
        },
        close: (socket) => {
          emulator.finish(socket.data)
          emulator.connections--
        },
        error: () => {},
      },
    })
    return emulator
  }

  /** A serial printer: a pseudo-terminal whose other end is `path` (see SerialLineOptions). */
  static serial(options: EmulatorOptions & SerialLineOptions): PrinterEmulator {
    const emulator = new PrinterEmulator(options)
    emulator.line = new SerialLine(options, emulator)
    return emulator
  }

  /**
   * No connection is open, so every ticket sent so far is among the receipts. A printer confirms
   * a job (GS ( H) before the connection that carried it closes: a job can be COMPLETED a moment
   * before its receipt is filed.
   */
  get quiet(): boolean {
    return this.connections === 0
  }

  get port(): number {
    return this.server!.port
  }

  /** The serial port the host opens (the link, where one was asked for). */
  get serialPath(): string {
    return this.line!.path
  }

  get printerState(): Readonly<PrinterState> {
    return this.state
  }

  /** Changes the state, as opening the cover or running out of paper does. */
  set(state: Partial<PrinterState>): void {
    this.state = { ...this.state, ...state }
  }

  /** How long printing takes from now on (a job already printing keeps its time); at once when 0. */
  printTakes(ms: number): void {
    this.printMs = ms
  }

  stop(): void {
    this.server?.stop(true)
    this.line?.close()
  }

  get canPrint(): boolean {
    return this.state.paper !== 'out' && !this.state.coverOpen && !this.state.error && !this.state.offline
  }

  /** Takes bytes off the line: the job's own, and requests, answered at once (status) or once printed (process ID). */
  receive(session: Session, bytes: Uint8Array, reply: (bytes: Uint8Array) => void): void {
    const { requests, data } = session.scanner.scan(bytes)
    if (data.length > 0) {
      const now = performance.now()
      if (session.chunks.length === 0) session.firstByteAt = now
      session.lastByteAt = now
      session.chunks.push(data)
      if (!this.canPrint) session.held = true
    }
    for (const request of requests) {
      if (request.kind === 'status') {
        const status = realtimeStatus(request.n, this.state)
        if (status !== undefined) reply(Uint8Array.of(status))
      } else session.processIds.push(request.id)
    }
  }

  /**
   * Everything received is printed by now (or after `printMs`): the process IDs asked are answered, if it can print.
   */
  answerProcessIds(session: Session, reply: (bytes: Uint8Array) => void): void {
    if (!this.canPrint) return
    const ids = session.processIds.splice(0)
    const answer = () => {
      for (const id of ids) reply(processIdResponse(id))
    }
    if (this.printMs) setTimeout(answer, this.printMs)
    else answer()
  }

  finish(session: Session): void {
    session.chunks.push(session.scanner.flush())
    const length = session.chunks.reduce((sum, chunk) => sum + chunk.length, 0)
    // A connection that only asked for the status leaves no receipt.
    if (length === 0 && session.lost === 0) return
    const bytes = new Uint8Array(length)
    let offset = 0
    for (const chunk of session.chunks) {
      bytes.set(chunk, offset)
      offset += chunk.length
    }
    const { profile, width } = this.options
    const receipt: EmulatedReceipt = {
      number: ++this.received,
      bytes,
      at: Date.now(),
      preview: previewFor(bytes, profile, width),
      held: session.held,
      lost: session.lost,
      firstByteAt: session.firstByteAt,
      lastByteAt: session.lastByteAt,
    }
    this.receipts.push(receipt)
    this.keptBytes += bytes.length
    const store = this.options.store
    if (store) {
      const name = this.fileStem(receipt)!
      writeFileSync(`${name}.bin`, bytes)
      writeFileSync(`${name}.txt`, `${receipt.preview.text.join('\n')}\n`)
      writeFileSync(`${name}.png`, receipt.preview.png())
    }
    const keep = this.options.keep ?? EMULATOR_KEEP
    while (this.receipts.length > keep.receipts || (this.keptBytes > keep.bytes && this.receipts.length > 1))
      this.forgetOldest()
    this.options.onReceipt?.(receipt)
  }

  /** Receipts printed since the start, including those no longer kept. */
  get printedCount(): number {
    return this.received
  }

  private forgetOldest(): void {
    const oldest = this.receipts.shift()!
    this.keptBytes -= oldest.bytes.length
    const name = this.fileStem(oldest)
    if (name) for (const ext of ['bin', 'txt', 'png']) rmSync(`${name}.${ext}`, { force: true })
  }

  /** Where a receipt's files are, in the emulator's directory. */
  private fileStem(receipt: EmulatedReceipt): string | undefined {
    return this.options.store && join(this.options.store, String(receipt.number).padStart(4, '0'))
  }
}
