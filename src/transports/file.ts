// file:///path: appends each job's bytes to a file (debugging, and a printer stand-in in tests).
// Once write() returns the bytes belong to the operating system: a killed process loses nothing
// it wrote, only a power cut can.
import { appendFile } from 'node:fs/promises'
import { failure } from '../protocol/failures.ts'
import { refused, type SubmitOutcome } from './submission.ts'

export async function submitToFile(path: string, bytes: Uint8Array): Promise<SubmitOutcome> {
  try {
    await appendFile(path, bytes)
    return { ok: true }
  } catch (error) {
    return refused(failure('printer.unreachable', `Cannot write to ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`))
  }
}
