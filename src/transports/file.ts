// file:///path: appends each job's bytes to a file (debugging, and a printer stand-in in tests).
// Once write() returns the bytes belong to the operating system: a killed process loses nothing
// it wrote, only a power cut can.
import { appendFile } from 'node:fs/promises'
import { SubmitError } from './submit-error.ts'

export async function submitToFile(path: string, bytes: Uint8Array): Promise<void> {
  try {
    await appendFile(path, bytes)
  } catch (error) {
    throw new SubmitError('printer.unreachable', `Cannot write to ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, true)
  }
}
