// Virtual printers: they keep what they were sent in memory (with the model and paper it was
// rendered for, so the receipt preview can show it), and can be set to fail or to be offline
// through their connection URI.
import type { Connection } from '../domain/connection-uri.ts'
import { failure } from '../protocol/failures.ts'
import { CANCELLED, type PrinterModel, refused, type SubmitOutcome } from './submission.ts'

/**
 * What the virtual printers remember, so a hub that prints to them for months stays the same size:
 * the newest jobs of each, at most this many per printer and this many bytes for all of them.
 */
export const VIRTUAL_KEEP = { jobsPerPrinter: 100, bytes: 16 * 1024 * 1024 } as const

export interface VirtualOutput {
  readonly bytes: Uint8Array
  readonly at: number
  /** The model and paper the bytes were rendered for. */
  readonly paper: PrinterModel
}

type Virtual = Extract<Connection, { kind: 'virtual' }>

export class VirtualPrinters {
  /** Each printer's kept jobs, oldest first, numbered in the order all of them printed. */
  private readonly outputs = new Map<string, { output: VirtualOutput; seq: number }[]>()
  private bytesKept = 0
  private printedSoFar = 0

  constructor(private readonly keep: { jobsPerPrinter: number; bytes: number } = VIRTUAL_KEEP) {}

  /** What printer `name` printed, oldest first (the newest jobs it printed, as many as are kept). */
  printed(name: string): readonly VirtualOutput[] {
    return (this.outputs.get(name) ?? []).map((kept) => kept.output)
  }

  /** The bytes kept for all virtual printers together. */
  get keptBytes(): number {
    return this.bytesKept
  }

  /**
   * Keeps the job, after the printer's delay (cancelled when `signal` aborts during it), unless it is set to fail or be
   * offline.
   */
  async submit(printer: Virtual, bytes: Uint8Array, signal: AbortSignal, paper: PrinterModel): Promise<SubmitOutcome> {
    if (printer.delayMs > 0 && !(await delay(printer.delayMs, signal))) return CANCELLED
    if (printer.mode === 'offline')
      return refused(failure('printer.offline', `The virtual printer ${printer.name} is offline.`))
    if (printer.mode === 'fail')
      return refused(failure('printer.failed', `The virtual printer ${printer.name} is set to fail every job.`))
    const history = this.outputs.get(printer.name) ?? []
    history.push({ output: { bytes, at: Date.now(), paper }, seq: this.printedSoFar++ })
    this.outputs.set(printer.name, history)
    this.bytesKept += bytes.length
    if (history.length > this.keep.jobsPerPrinter) this.forgetOldest(history)
    while (this.bytesKept > this.keep.bytes) this.forgetOldest(this.historyWithOldest())
    return { ok: true }
  }

  /** The printer whose oldest kept job is the oldest of all (a job bigger than the budget forgets itself too). */
  private historyWithOldest(): { output: VirtualOutput; seq: number }[] {
    let oldest: { output: VirtualOutput; seq: number }[] | undefined
    for (const history of this.outputs.values())
      if (history.length > 0 && (!oldest || history[0]!.seq < oldest[0]!.seq)) oldest = history
    return oldest!
  }

  private forgetOldest(history: { output: VirtualOutput; seq: number }[]): void {
    this.bytesKept -= history.shift()!.output.bytes.length
  }
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function delay(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false)
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
