// Hand-over marks: after a crash of the process alone (kill -9, in a real child process), a job the
// ledger claimed but never handed to its printer waits to print again, one the printer confirmed
// before its record comes back printed, and one that was handed over (or fully written) fails as
// uncertain. The marks are trusted only from the same boot and
// the run the ledger names; anything else about the file leaves every claimed job uncertain.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { HandOverMarks, marksFileOf, readMarks } from '../../src/agent/hand-over-marks.ts'
import type { RecoveredJob } from '../../src/agent/ledger-rows.ts'
import { Ledger, MAX_RESUMES } from '../../src/agent/ledger.ts'
import { LEDGER_FILE } from '../../src/agent/ledger-schema.ts'
import { bootId } from '../../src/platform/boot-id.ts'
import { tempDir } from '../support/hub.ts'

const BOOT = bootId()!
const OTHER_BOOT = '00000000-0000-4000-8000-000000000000'

let dir: string
beforeEach(() => {
  dir = tempDir()
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const marksFile = () => marksFileOf(join(dir, LEDGER_FILE))

/** Runs the crash child on `dir`: it takes three jobs to where it says, then kills itself (SIGKILL). */
async function crashed(): Promise<{
  handed: number
  claimed: number
  submitted: number
  printed: number
  next: number
}> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, '../support/ledger-crash.ts'), dir], {
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const [out] = await Promise.all([new Response(child.stdout).text(), child.exited])
  expect(child.signalCode).toBe('SIGKILL')
  return JSON.parse(out) as { handed: number; claimed: number; submitted: number; printed: number; next: number }
}

const ascending = (seqs: number[]) => seqs.sort((a, b) => a - b)

/** What recovery returned: the seqs left uncertain, and those it knows printed. */
function sortOut(jobs: RecoveredJob[]): { uncertain: number[]; printed: number[] } {
  const seqs = (printed: boolean) => ascending(jobs.filter((job) => job.printed === printed).map((job) => job.seq))
  return { uncertain: seqs(false), printed: seqs(true) }
}

/**
 * Opens the ledger again, as the next start does, and recovers: the seqs left uncertain and known printed, and the
 * ledger.
 */
function recovered(): { uncertain: number[]; printed: number[]; ledger: Ledger } {
  const ledger = Ledger.open(dir)
  return { ...sortOut(ledger.recover()), ledger }
}

test('this machine has a boot ID (the marks are trusted only within one boot)', () => {
  expect(BOOT).toMatch(/^[0-9a-f-]{36}$/)
  expect(bootId(join(dir, 'none'))).toBeUndefined()
})

test(
  'killed after the intent of a job and before its mark: it waits to print ' +
    'again; the handed and the written ones are uncertain; the confirmed one ' +
    "printed, its printer's next job handed over since",
  async () => {
    const seqs = await crashed()
    const { uncertain, printed, ledger } = recovered()
    try {
      expect(uncertain).toEqual(ascending([seqs.handed, seqs.submitted, seqs.next]))
      // Printed, not sent again: its mark outlives the next job's hand-over.
      expect(printed).toEqual([seqs.printed])
      const resumed = ledger.nextReceived('terrace')!
      expect(resumed).toMatchObject({ seq: seqs.claimed, state: 'received', recoveryCount: 1 })
      expect(ledger.printersWithWork()).toEqual(['terrace'])
      // On disk: the next start (with no marks of its own yet) finds it received, not uncertain.
      await ledger.durable()
    } finally {
      ledger.close()
    }
    const again = recovered()
    try {
      expect(again.ledger.job(again.ledger.nextReceived('terrace')!.jobId)?.state).toBe('received')
    } finally {
      again.ledger.close()
    }
  },
)

test(
  `a job resumed ${MAX_RESUMES} times already (crashes that keep coming at ` +
    `the same step) is left uncertain: never a loop of crashes`,
  async () => {
    const seqs = await crashed()
    const ledger = Ledger.open(dir)
    ledger.db.run('UPDATE ledger_jobs SET recovery_count = ? WHERE seq = ?', [MAX_RESUMES, seqs.claimed])
    const { uncertain, printed } = sortOut(ledger.recover())
    ledger.close()
    expect(uncertain).toEqual(ascending([seqs.handed, seqs.submitted, seqs.claimed, seqs.next]))
    expect(printed).toEqual([seqs.printed])
  },
)

const everyClaimed = (seqs: Awaited<ReturnType<typeof crashed>>) =>
  ascending([seqs.handed, seqs.submitted, seqs.claimed, seqs.printed, seqs.next])

test(
  'marks of another boot (a power cut, a kernel crash) are not trusted: ' +
    'every claimed job is uncertain, the confirmed one too',
  async () => {
    const seqs = await crashed()
    const file = readFileSync(marksFile())
    writeFileSync(marksFile(), Buffer.from(file.toString('latin1').replace(BOOT, OTHER_BOOT), 'latin1'))
    const { uncertain, printed, ledger } = recovered()
    ledger.close()
    expect(uncertain).toEqual(everyClaimed(seqs))
    expect(printed).toEqual([])
  },
)

test(
  'marks of a run the ledger does not name (a database restored or copied, ' +
    'a run that started none) are not trusted',
  async () => {
    const seqs = await crashed()
    const ledger = Ledger.open(dir)
    ledger.setSettings({ hand_over_marks_run: crypto.randomUUID() })
    const { uncertain, printed } = sortOut(ledger.recover())
    ledger.close()
    expect(uncertain).toEqual(everyClaimed(seqs))
    expect(printed).toEqual([])
  },
)

test('no marks file, or a damaged one: every claimed job is uncertain', async () => {
  const seqs = await crashed()
  const all = everyClaimed(seqs)
  const whole = readFileSync(marksFile())
  // Cut in the middle of a slot.
  truncateSync(marksFile(), whole.length - 3)
  let { uncertain, ledger } = recovered()
  ledger.close()
  expect(uncertain).toEqual(all)
  // The header no longer JSON (a torn write, a disk error).
  writeFileSync(marksFile(), Buffer.concat([Buffer.from('XXXX'), whole.subarray(4)]))
  ;({ uncertain, ledger } = recovered())
  ledger.close()
  expect(uncertain).toEqual(all)
  rmSync(marksFile())
  ;({ uncertain, ledger } = recovered())
  ledger.close()
  expect(uncertain).toEqual(all)
})

test(
  'recovery trusts the last run’s marks no more, and keeps jobs still ' +
    'claimed uncertain and the confirmed one printed: a crash right after it',
  async () => {
    const seqs = await crashed()
    const lastRun = Ledger.open(dir)
    const crashedRun = lastRun.setting('hand_over_marks_run')
    lastRun.close()
    expect(readMarks(marksFile(), crashedRun, BOOT)?.handed.has(seqs.handed)).toBe(true)
    const first = recovered()
    expect(first.uncertain).toEqual(ascending([seqs.handed, seqs.submitted, seqs.next]))
    expect(first.printed).toEqual([seqs.printed])
    // The crashed run's file is gone; this run's holds the job still claimed (a job submitted is
    // uncertain whatever the marks) and the one known printed.
    expect(readMarks(marksFile(), crashedRun, BOOT)).toBeUndefined()
    const carried = readMarks(marksFile(), first.ledger.setting('hand_over_marks_run'), BOOT)!
    expect(ascending([...carried.handed])).toEqual(ascending([seqs.handed, seqs.next, seqs.printed]))
    expect([...carried.printed]).toEqual([seqs.printed])
    // None is ended yet (the agent does that after recovery) when this run's marks start; the
    // resumed job is claimed again and the process dies before its mark.
    expect(first.ledger.claim(seqs.claimed)).toBe(true)
    await first.ledger.durable()
    first.ledger.close()
    const second = recovered()
    second.ledger.close()
    expect(second.uncertain).toEqual(ascending([seqs.handed, seqs.submitted, seqs.next]))
    expect(second.printed).toEqual([seqs.printed])
  },
)

test(
  'the file: two slots per printer holding its last two jobs in turn, and ' +
    'whether they printed, read back only with its own boot and run',
  () => {
    const run = crypto.randomUUID()
    const marks = HandOverMarks.begin(marksFile(), { run, boot: BOOT })
    marks.mark('kitchen', 7)
    marks.mark('bar', 8)
    marks.printed('bar', 8)
    marks.mark('kitchen', 9)
    // Not the kitchen's last job: nothing is written.
    expect(marks.printed('kitchen', 7)).toBe(false)
    expect(marks.printed('patio', 7)).toBe(false)
    marks.mark('terrace', 2 ** 40)
    expect(marks.printed('terrace', 2 ** 40)).toBe(true)
    expect(marks.printed('kitchen', 9)).toBe(true)
    // The kitchen's third job takes its first job's slot: its second, printed, keeps its mark.
    marks.mark('kitchen', 11)
    marks.close()
    const read = readMarks(marksFile(), run, BOOT)!
    expect(ascending([...read.handed])).toEqual([8, 9, 11, 2 ** 40])
    expect(ascending([...read.printed])).toEqual([8, 9, 2 ** 40])
    expect(readFileSync(marksFile()).length).toBe(128 + 4 * 8)
    expect(readMarks(marksFile(), run, OTHER_BOOT)).toBeUndefined()
    expect(readMarks(marksFile(), crypto.randomUUID(), BOOT)).toBeUndefined()
    expect(readMarks(marksFile(), run, undefined)).toBeUndefined()
    expect(() => marks.mark('kitchen', 10)).toThrow('closed')
    expect(() => marks.printed('kitchen', 11)).toThrow('closed')
    // Begun again, the file starts empty but for the jobs it is told were claimed before, or printed.
    HandOverMarks.begin(marksFile(), { run, boot: BOOT }).close()
    expect(readMarks(marksFile(), run, BOOT)).toEqual({ handed: new Set(), printed: new Set() })
    HandOverMarks.begin(marksFile(), { run, boot: BOOT, handed: [3, 4], printed: [5] }).close()
    expect(readMarks(marksFile(), run, BOOT)).toEqual({ handed: new Set([3, 4, 5]), printed: new Set([5]) })
  },
)

test('a file of version 1 (before the printed marks) is read; one of another version is not trusted', () => {
  const run = crypto.randomUUID()
  HandOverMarks.begin(marksFile(), { run, boot: BOOT, handed: [3], printed: [5] }).close()
  const file = readFileSync(marksFile()).toString('latin1')
  expect(file.startsWith('{"version":2,')).toBe(true)
  const slots = Buffer.alloc(8)
  slots.writeDoubleLE(3, 0)
  const header = (version: number) => JSON.stringify({ version, boot: BOOT, run }).padEnd(127, ' ') + '\n'
  writeFileSync(marksFile(), Buffer.concat([Buffer.from(header(1), 'latin1'), slots]))
  expect(readMarks(marksFile(), run, BOOT)).toEqual({ handed: new Set([3]), printed: new Set() })
  writeFileSync(marksFile(), Buffer.concat([Buffer.from(header(3), 'latin1'), slots]))
  expect(readMarks(marksFile(), run, BOOT)).toBeUndefined()
})
