// Hand-over marks: for each printer, the jobs last handed to its transport (the last two), each
// written just before that job's first byte, and then again once it printed (the printer confirmed it, or took
// every byte on a link that cannot tell), written the moment that is known, into a small file
// beside the ledger's database. The writes are not flushed: each costs a pwrite(2) into the page
// cache, which a process killed with -9 does not lose, and a power cut or kernel crash (which do
// lose it) start another boot. So after a crash of the process alone, a job left `submitting`
// whose mark is not in the file was never handed over: it is sent again safely instead of failing
// as uncertain; and a job left `submitting` or `submitted` whose mark says it printed is
// completed, not uncertain (the crash came between the printer's word and the ledger's record of
// it). The file is trusted only when it was written in the same boot and by the run the ledger
// names (a token the ledger keeps in its own settings, so a database restored from a backup or
// copied never trusts a file it did not write with).
//
// Layout: a 128-byte header (JSON: version, boot ID, run token; space-padded, ending in a newline),
// then 8-byte slots (a job's ledger seq as a little-endian float64: positive once handed over,
// negative once printed): one for each job still claimed when the run began, then two for each
// printer the run handed a job to, used in turn. A printer's job marked printed keeps its mark
// while the printer's next job is handed over: its record may still be on its way then (it is
// made while that next job's intent is flushed, agent/held-records.ts), and it is on disk before
// the job after that is handed over (committed with that one's intent at the latest), which is
// when its slot is used again. With one slot, that next job's mark took the printed one's place,
// and a crash in between sent the printed job again. Version 1 files (written before the printed marks) read
// the same; a version 1 reader refuses a version 2 file, so it never takes a printed mark for a
// job that was not handed over.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs'

const VERSION = 2
/** The versions read: 1 has handed-over marks only. */
const READ_VERSIONS: readonly number[] = [1, 2]
const HEADER_BYTES = 128
const SLOT_BYTES = 8

interface Header {
  version: number
  boot: string
  run: string
}

/** The marks file of a database file: beside it, as its `-wal` is. */
export const marksFileOf = (databaseFile: string): string => `${databaseFile}-handed`

/** What a run's file says: the jobs handed over (the printed ones among them), and the jobs known to have printed. */
export interface Marks {
  handed: ReadonlySet<number>
  printed: ReadonlySet<number>
}

/**
 * What a previous run handed over and saw printed, from its file; undefined when the file cannot
 * be trusted to hold every job handed over: none, unreadable, another boot's, or not of the run
 * the ledger names.
 */
export function readMarks(path: string, run: string | undefined, boot: string | undefined): Marks | undefined {
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
  if (!READ_VERSIONS.includes(header.version!) || header.boot !== boot || header.run !== run) return undefined
  const handed = new Set<number>()
  const printed = new Set<number>()
  for (let offset = HEADER_BYTES; offset < bytes.length; offset += SLOT_BYTES) {
    const slot = bytes.readDoubleLE(offset)
    if (slot > 0) handed.add(slot)
    else if (slot < 0) {
      handed.add(-slot)
      printed.add(-slot)
    }
  }
  return { handed, printed }
}

/** This run's marks file, written afresh (whatever was there is gone). */
/** What a run's file of marks starts with (HandOverMarks.begin). */
export interface MarksStart {
  /** The run the file is of (named in the ledger's settings). */
  run: string
  /** The machine's boot the run started in. */
  boot: string
  /** Jobs claimed before this run, which must stay uncertain. */
  handed?: readonly number[]
  /** Jobs known printed whose record is still to be written. */
  printed?: readonly number[]
}

export class HandOverMarks {
  /** The slots of each printer (two, used in turn), and of each job claimed when the run began (one). */
  private readonly slots = new Map<string, number[]>()
  private usedSlots = 0
  /** Which of a printer's two slots holds its last job. */
  private readonly turns = new Map<string, number>()
  /** What the slot of each printer's last job holds now. */
  private readonly values = new Map<string, number>()
  private readonly slot = Buffer.alloc(SLOT_BYTES)

  private constructor(private fd: number | undefined) {}

  /**
   * Starts a file with `handed` marked (jobs claimed before this run that must stay uncertain) and
   * `printed` (jobs known printed whose record is still to be written: known after a second crash too).
   */
  static begin(path: string, { run, boot, handed = [], printed = [] }: MarksStart): HandOverMarks {
    const fd = openSync(path, 'w', 0o600)
    const marks = new HandOverMarks(fd)
    try {
      const header = JSON.stringify({ version: VERSION, boot, run } satisfies Header)
      writeSync(fd, `${header.padEnd(HEADER_BYTES - 1, ' ')}\n`, 0, 'utf8')
      // Each in a slot of its own, under a name no printer has.
      for (const seq of handed) marks.write(`\u0000${seq}`, 0, seq)
      for (const seq of printed) marks.write(`\u0000${seq}`, 0, -seq)
    } catch (error) {
      marks.close()
      throw error
    }
    return marks
  }

  /** Notes that `seq` is about to be handed to `printerId`'s transport (a printer takes one job at a time). */
  mark(printerId: string, seq: number): void {
    const turn = 1 - (this.turns.get(printerId) ?? 1)
    this.turns.set(printerId, turn)
    this.write(printerId, turn, seq)
  }

  /**
   * Notes that `seq`, the job last handed to `printerId`'s transport, printed; false (nothing written) for another job.
   */
  printed(printerId: string, seq: number): boolean {
    if (this.values.get(printerId) !== seq) return false
    this.write(printerId, this.turns.get(printerId)!, -seq)
    return true
  }

  close(): void {
    if (this.fd === undefined) return
    closeSync(this.fd)
    this.fd = undefined
  }

  private write(printerId: string, turn: number, slotValue: number): void {
    if (this.fd === undefined) throw new Error('the hand-over marks are closed')
    const slots = this.slots.get(printerId) ?? []
    this.slots.set(printerId, slots)
    const index = (slots[turn] ??= this.usedSlots++)
    this.slot.writeDoubleLE(slotValue, 0)
    this.values.delete(printerId)
    if (writeSync(this.fd, this.slot, 0, SLOT_BYTES, HEADER_BYTES + index * SLOT_BYTES) !== SLOT_BYTES)
      throw new Error('a hand-over mark was written in part')
    this.values.set(printerId, slotValue)
  }
}
