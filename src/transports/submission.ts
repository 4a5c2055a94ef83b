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
