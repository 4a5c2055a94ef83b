// file:///path: appends each job's bytes to a file in the output folder (debugging, spooling, and a
// printer stand-in in tests). Once write() returns the bytes belong to the operating system: a
// killed process loses nothing it wrote, only a power cut can.
import { failure } from '../protocol/failures.ts'
import { openConfinedFile } from './confine.ts'
import { refused, type SubmitOutcome } from './submission.ts'

export async function submitToFile(path: string, bytes: Uint8Array, outputDir: string): Promise<SubmitOutcome> {
  try {
    const opened = await openConfinedFile(path, outputDir)
    if (!opened.ok) return refused(failure('printer.invalid_connection', opened.message))
    try {
      await opened.file.appendFile(bytes)
    } finally {
      await opened.file.close()
    }
    return { ok: true }
  } catch (error) {
    return refused(
      failure(
        'printer.unreachable',
        `Cannot write to ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      ),
    )
  }
}
