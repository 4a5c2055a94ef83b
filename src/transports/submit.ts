// Hands a rendered job to its printer, whatever the connection. Serial and USB links come with
// their transports; until then a job for one fails plainly instead of vanishing.
import type { Connection } from './connection-uri.ts'
import { submitToFile } from './file.ts'
import { SubmitError } from './submit-error.ts'
import { submitToTcp } from './tcp.ts'
import type { VirtualPaper, VirtualPrinters } from './virtual.ts'

/** `paper` is the printer's model and width: a virtual printer keeps them to preview what it printed. */
export async function submit(connection: Connection, bytes: Uint8Array, signal: AbortSignal, virtuals: VirtualPrinters, paper: VirtualPaper): Promise<void> {
  switch (connection.kind) {
    case 'virtual':
      return virtuals.submit(connection, bytes, signal, paper)
    case 'file':
      return submitToFile(connection.path, bytes)
    case 'tcp':
      return submitToTcp(connection.host, connection.port, bytes, signal)
    default:
      throw new SubmitError('connection_unsupported', `This printhub cannot write to ${connection.kind} printers yet.`, false)
  }
}
