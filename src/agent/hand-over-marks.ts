// Hand-over marks: for each printer, the job last handed to its transport, written just before
// that job's first byte, into a small file beside the ledger's database. The write is not flushed:
// it costs a pwrite(2) into the page cache, which a process killed with -9 does not lose, and a
// power cut or kernel crash (which do lose it) start another boot. So after a crash of the process
// alone, a job left `submitting` whose mark is not in the file was never handed over: it is sent
// again safely instead of failing as uncertain. The file is trusted only when it was written in
// the same boot and by the run the ledger names (a token the ledger keeps in its own settings, so a
// database restored from a backup or copied never trusts a file it did not write with).
//
// Layout: a 128-byte header (JSON: version, boot ID, run token; space-padded, ending in a newline),
// then one 8-byte slot per printer the run handed a job to (the job's ledger seq as a
// little-endian float64), after one for each job still claimed when the run began.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs'

const VERSION = 1
const HEADER_BYTES = 128
const SLOT_BYTES = 8

interface Header {
  version: number
  boot: string
  run: string
}

/** The marks file of a database file: beside it, as its `-wal` is. */
export const marksFileOf = (databaseFile: string): string => `${databaseFile}-handed`

/**
 * The jobs a previous run handed over, from its file; undefined when the file cannot be trusted
 * to hold every one of them: none, unreadable, another boot's, or not of the run the ledger names.
 */
export function readMarks(path: string, run: string | undefined, boot: string | undefined): ReadonlySet<number> | undefined {
  if (!run || !boot) return undefined
  let bytes: Buffer
  try {
    bytes = readFileSync(path)
  } catch {
    return undefined
  }
  if (bytes.length < HEADER_BYTES || (bytes.length - HEADER_BYTES) % SLOT_BYTES !== 0) return undefined
  let header: Partial<Header>
  try {
    header = JSON.parse(bytes.subarray(0, HEADER_BYTES).toString('utf8')) as Partial<Header>
  } catch {
    return undefined
  }
  if (header.version !== VERSION || header.boot !== boot || header.run !== run) return undefined
  const handed = new Set<number>()
  for (let offset = HEADER_BYTES; offset < bytes.length; offset += SLOT_BYTES) {
    const seq = bytes.readDoubleLE(offset)
    if (seq !== 0) handed.add(seq)
  }
  return handed
}

/** This run's marks file, written afresh (whatever was there is gone). */
export class HandOverMarks {
  private readonly slots = new Map<string, number>()
  private readonly slot = Buffer.alloc(SLOT_BYTES)

  private constructor(private fd: number | undefined) {}

  /** Starts a file with `handed` marked: jobs claimed before this run that must stay uncertain. */
  static begin(path: string, run: string, boot: string, handed: readonly number[] = []): HandOverMarks {
    const fd = openSync(path, 'w', 0o600)
    const marks = new HandOverMarks(fd)
    try {
      const header = JSON.stringify({ version: VERSION, boot, run } satisfies Header)
      writeSync(fd, `${header.padEnd(HEADER_BYTES - 1, ' ')}\n`, 0, 'utf8')
      // Each in a slot of its own, under a name no printer has.
      for (const seq of handed) marks.mark(`\u0000${seq}`, seq)
    } catch (error) {
      marks.close()
      throw error
    }
    return marks
  }

  /** Notes that `seq` is about to be handed to `printerId`'s transport (a printer takes one job at a time). */
  mark(printerId: string, seq: number): void {
    if (this.fd === undefined) throw new Error('the hand-over marks are closed')
    let index = this.slots.get(printerId)
    if (index === undefined) {
      index = this.slots.size
      this.slots.set(printerId, index)
    }
    this.slot.writeDoubleLE(seq, 0)
    if (writeSync(this.fd, this.slot, 0, SLOT_BYTES, HEADER_BYTES + index * SLOT_BYTES) !== SLOT_BYTES) throw new Error('a hand-over mark was written in part')
  }

  close(): void {
    if (this.fd === undefined) return
    closeSync(this.fd)
    this.fd = undefined
  }
}
