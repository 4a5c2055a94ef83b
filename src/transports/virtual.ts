// Virtual printers: they keep what they were sent in memory (with the model and paper it was
// rendered for, so the receipt preview can show it), and can be set to fail or to be offline
// through their connection URI.
import type { Connection } from '../domain/connection-uri.ts'
import { failure } from '../protocol/failures.ts'
import { CANCELLED, type PrinterModel, refused, type SubmitOutcome } from './submission.ts'

/** Jobs each virtual printer remembers. */
export const VIRTUAL_HISTORY = 100

export interface VirtualOutput {
  readonly bytes: Uint8Array
  readonly at: number
  /** The model and paper the bytes were rendered for. */
  readonly paper: PrinterModel
}

type Virtual = Extract<Connection, { kind: 'virtual' }>

export class VirtualPrinters {
  private readonly outputs = new Map<string, VirtualOutput[]>()

  /** What printer `name` printed, oldest first. */
  printed(name: string): readonly VirtualOutput[] {
    return this.outputs.get(name) ?? []
  }

  /** Keeps the job, after the printer's delay (cancelled when `signal` aborts during it), unless it is set to fail or be offline. */
  async submit(printer: Virtual, bytes: Uint8Array, signal: AbortSignal, paper: PrinterModel): Promise<SubmitOutcome> {
    if (printer.delayMs > 0 && !(await delay(printer.delayMs, signal))) return CANCELLED
    if (printer.mode === 'offline') return refused(failure('printer.offline', `The virtual printer ${printer.name} is offline.`))
    if (printer.mode === 'fail') return refused(failure('printer.failed', `The virtual printer ${printer.name} is set to fail every job.`))
    const history = this.outputs.get(printer.name) ?? []
    history.push({ bytes, at: Date.now(), paper })
    if (history.length > VIRTUAL_HISTORY) history.shift()
    this.outputs.set(printer.name, history)
    return { ok: true }
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
