// Virtual printers: they keep what they were sent in memory (the receipt preview and the tests
// read it), and can be set to fail or to be offline through their connection URI.
import type { Connection } from './connection-uri.ts'
import { cancelled, SubmitError } from './submit-error.ts'

/** Jobs each virtual printer remembers. */
export const VIRTUAL_HISTORY = 100

export interface VirtualOutput {
  bytes: Uint8Array
  at: number
}

type Virtual = Extract<Connection, { kind: 'virtual' }>

export class VirtualPrinters {
  private readonly outputs = new Map<string, VirtualOutput[]>()

  /** What printer `name` printed, oldest first. */
  printed(name: string): readonly VirtualOutput[] {
    return this.outputs.get(name) ?? []
  }

  async submit(printer: Virtual, bytes: Uint8Array, signal: AbortSignal): Promise<void> {
    if (printer.delayMs > 0) await delay(printer.delayMs, signal)
    if (printer.mode === 'offline') throw new SubmitError('printer_offline', `The virtual printer ${printer.name} is offline.`, true)
    if (printer.mode === 'fail') throw new SubmitError('printer_failed', `The virtual printer ${printer.name} is set to fail every job.`, true)
    const history = this.outputs.get(printer.name) ?? []
    history.push({ bytes, at: Date.now() })
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
