// What is known of a printer's condition, for people, for the agent's inventory and for applications.
import type { PRINTER_STATES } from '../protocol/admin/printers.ts'
import type { ProjectPrinterState } from '../protocol/project-printer.ts'

/** What the agent reports of a printer in its inventory (OpenPrinter's availability values). */
export type PrinterAvailability = 'online' | 'offline' | 'unknown'

/**
 * What is known of a printer's condition, for people: online, online with its paper running low,
 * or why it cannot print; unknown when it cannot be asked.
 */
export type PrinterState = (typeof PRINTER_STATES)[number]

export function availabilityOf(state: PrinterState): PrinterAvailability {
  return state === 'online' || state === 'paper_low' ? 'online' : state === 'unknown' ? 'unknown' : 'offline'
}

/**
 * A state someone should come and see to (a warning in the log): low or out of paper, cover open, an error, offline.
 */
export function needsAttention(state: PrinterState): boolean {
  return state !== 'online' && state !== 'unknown'
}

/** The printer's state as applications see it: ready or busy (a job with its agent) when it can print. */
export function projectPrinterState(state: PrinterState, busy: boolean): ProjectPrinterState {
  switch (state) {
    case 'online':
      return busy ? 'busy' : 'ready'
    case 'paper_low':
      return 'paper_near_end'
    default:
      return state
  }
}
