// Virtual printers: they keep what they were sent in memory, readable as the receipt preview
// shows it, and can be set to fail or to be offline through their connection URI.
import { type PrinterPreview, previewFor } from '../preview/preview.ts'
import { findProfile } from '../profiles/catalog.ts'
import type { Connection } from '../domain/connection-uri.ts'
import { cancelled, SubmitError } from './submit-error.ts'
import type { PrinterModel } from './submission.ts'

/** Jobs each virtual printer remembers. */
export const VIRTUAL_HISTORY = 100

export class VirtualOutput {
  constructor(
    readonly bytes: Uint8Array,
    readonly at: number,
    private readonly paper: PrinterModel,
  ) {}

  /** What the printer would have printed, read back from the bytes (decoded when asked). */
  preview(): PrinterPreview {
    const profile = findProfile(this.paper.profile)
    if (!profile) throw new RangeError(`no printer profile ${this.paper.profile}`)
    return previewFor(this.bytes, profile, this.paper.width)
  }
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
    history.push(new VirtualOutput(bytes, Date.now(), paper))
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
