// Virtual printers: they keep what they were sent in memory (with the model and paper it was
// rendered for, so the receipt preview can show it), and can be set to fail or to be offline
// through their connection URI.
import type { Connection } from '../domain/connection-uri.ts'
import { cancelled, SubmitError } from './submit-error.ts'
import type { PrinterModel } from './submission.ts'

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

  async submit(printer: Virtual, bytes: Uint8Array, signal: AbortSignal, paper: PrinterModel): Promise<void> {
    if (printer.delayMs > 0) await delay(printer.delayMs, signal)
    if (printer.mode === 'offline') throw new SubmitError('printer.offline', `The virtual printer ${printer.name} is offline.`, true)
    if (printer.mode === 'fail') throw new SubmitError('printer.failed', `The virtual printer ${printer.name} is set to fail every job.`, true)
    const history = this.outputs.get(printer.name) ?? []
    history.push({ bytes, at: Date.now(), paper })
    if (history.length > VIRTUAL_HISTORY) history.shift()
    this.outputs.set(printer.name, history)
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(cancelled())
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      reject(cancelled())
    }, { once: true })
  })
}
