// Hands a rendered job to its printer, whatever the connection. Serial and USB links come with
// their transports; until then a job for one fails plainly instead of vanishing.
import { findProfile } from '../profiles/catalog.ts'
import type { Connection } from './connection-uri.ts'
import { submitToFile } from './file.ts'
import { SubmitError } from './submit-error.ts'
import { submitToTcp } from './tcp.ts'
import type { PrinterModel, Submission } from './submission.ts'
import type { VirtualPrinters } from './virtual.ts'

/**
 * `model` is the printer's model and paper: a network printer is asked for its status as its
 * profile allows, and a virtual one keeps them to preview what it printed.
 */
export async function submit(connection: Connection, bytes: Uint8Array, signal: AbortSignal, virtuals: VirtualPrinters, model: PrinterModel): Promise<Submission> {
  switch (connection.kind) {
    case 'virtual':
      await virtuals.submit(connection, bytes, signal, model)
      return {}
    case 'file':
      await submitToFile(connection.path, bytes)
      return {}
    case 'tcp': {
      // A model this printhub does not know is asked nothing: its bytes are all it gets.
      const status = findProfile(model.profile)?.status ?? { realtime: false, processIdResponse: false }
      return submitToTcp(connection.host, connection.port, bytes, signal, status)
    }
    default:
      throw new SubmitError('connection_unsupported', `This printhub cannot write to ${connection.kind} printers yet.`, false)
  }
}
