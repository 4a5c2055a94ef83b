// What a transport says of a job it handed to a printer.
import type { PaperWidth } from '../protocol/document.ts'

/** What the printer's model can tell about itself (from its profile). */
export interface StatusSupport {
  /** It answers real-time status requests (`DLE EOT`). */
  realtime: boolean
  /** It sends the process ID response (`GS ( H`) once it printed everything before it. */
  processIdResponse: boolean
}

/** The model and paper of the printer a job goes to, from its record. */
export interface PrinterModel {
  profile: string
  width: PaperWidth
}

/**
 * Every byte reached the printer. `printed` settles when the printer says it printed them (or
 * rejects with the reason it could not); absent when the link cannot tell, and then taking the
 * bytes is all the agent can know.
 */
export interface Submission {
  printed?: Promise<void>
}

/** What the agent reports of a printer in its inventory (OpenPrinter's availability values). */
export type PrinterAvailability = 'online' | 'offline' | 'unknown'

/**
 * What is known of a printer's condition, for people: online, online with its paper running low,
 * or why it cannot print; unknown when it cannot be asked.
 */
export type PrinterState = 'online' | 'paper_low' | 'paper_out' | 'cover_open' | 'error' | 'offline' | 'unknown'

export function availabilityOf(state: PrinterState): PrinterAvailability {
  return state === 'online' || state === 'paper_low' ? 'online' : state === 'unknown' ? 'unknown' : 'offline'
}
