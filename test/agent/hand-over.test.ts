// A job's hand-over, on a real ledger in a real database file: the intent to print is on disk and
// the job's hand-over mark written before the printer gets a byte, whichever way the intent is
// flushed (on the spot while no other printer is at work; on the thread pool, beside any flush
// running, while others are). The flush is held by the test to see what waits for it.
import { Database } from 'bun:sqlite'
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { fsync as realFsync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { handOver } from '../../src/agent/hand-over.ts'
import { marksFileOf, readMarks } from '../../src/agent/hand-over-marks.ts'
import { Ledger } from '../../src/agent/ledger.ts'
import { bootId } from '../../src/platform/boot-id.ts'
import { GroupCommit } from '../../src/sqlite/group-commit.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { DeviceFinder } from '../../src/transports/devices.ts'
import { VirtualPrinters } from '../../src/transports/virtual.ts'
import { ledgerJobInState, printJobPayload } from '../support/fixtures.ts'
import { tempDir } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

let dir: string
let db: Database
let held: (() => void)[]
let ledger: Ledger
const virtuals = new VirtualPrinters()
const transports = () => ({ virtuals, devices: new DeviceFinder(), confinement: confinementOf(dir) })
const model = { profile: 'epson-tm-m30iii', width: 80 as const }
const file = () => join(dir, 'hub.db')
/** What another connection (a restarted hub) finds of the job. */
const stateOnDisk = (seq: number) => {
  const reader = new Database(file(), { readonly: true })
  try {
    return reader.query<{ state: string }, [number]>('SELECT state FROM ledger_jobs WHERE seq = ?').get(seq)?.state
  } finally {
    reader.close()
  }
}

beforeEach(() => {
  dir = tempDir()
  db = new Database(file(), { create: true, strict: true })
  db.run('PRAGMA journal_mode = WAL')
  held = []
  const commits = new GroupCommit(
    db,
    (error) => {
      throw error
    },
    (fd, done) => held.push(() => realFsync(fd, done)),
  )
  ledger = Ledger.within(db, commits)
  ledger.recover()
})
afterEach(() => {
  ledger.close()
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

async function receivedJob(printer: string) {
  const job = ledgerJobInState(ledger, 'received', printJobPayload(printer))
  const stored = ledger.durable()
  await waitFor(() => held.length > 0 || undefined, 5_000)
  held.splice(0).forEach((go) => go())
  await stored
  return job
}

for (const othersAtWork of [false, true]) {
  const flushed = othersAtWork
    ? 'other printers at work: the intent is flushed on the thread pool'
    : 'no other printer at work: the intent is flushed on the spot'
  test(`${flushed}, and the bytes wait for it and for the mark`, async () => {
    const name = `hand-over-${othersAtWork}`
    const job = await receivedJob(name)
    const connection = { kind: 'virtual' as const, name, mode: 'ok' as const, delayMs: 0 }
    const outcome = handOver({
      job,
      bytes: Uint8Array.of(0x1b, 0x40, 0x41),
      connection,
      model,
      ledger,
      transports: transports(),
      signal: new AbortController().signal,
      stopping: () => false,
      othersAtWork: () => othersAtWork,
    })
    if (othersAtWork) {
      // Claimed and committed; the flush is held, and so is every byte.
      await waitFor(() => held.length > 0 || undefined, 5_000)
      expect(stateOnDisk(job.seq)).toBe('submitting')
      expect(virtuals.printed(name)).toHaveLength(0)
      expect(readMarks(marksFileOf(file()), ledger.setting('hand_over_marks_run'), bootId())?.handed.has(job.seq)).toBe(
        false,
      )
      held.splice(0).forEach((go) => go())
    }
    expect(await outcome).toMatchObject({ ok: true })
    expect(stateOnDisk(job.seq)).toBe('submitting')
    expect(virtuals.printed(name)).toHaveLength(1)
    expect(readMarks(marksFileOf(file()), ledger.setting('hand_over_marks_run'), bootId())?.handed.has(job.seq)).toBe(
      true,
    )
  })
}

test('cancelled while its intent is being flushed: nothing is sent', async () => {
  const job = await receivedJob('hand-over-cancelled')
  const controller = new AbortController()
  const connection = { kind: 'virtual' as const, name: 'hand-over-cancelled', mode: 'ok' as const, delayMs: 0 }
  const outcome = handOver({
    job,
    bytes: Uint8Array.of(0x41),
    connection,
    model,
    ledger,
    transports: transports(),
    signal: controller.signal,
    stopping: () => false,
    othersAtWork: () => true,
  })
  await waitFor(() => held.length > 0 || undefined, 5_000)
  controller.abort()
  held.splice(0).forEach((go) => go())
  expect(await outcome).toMatchObject({ ok: false, cancelled: true })
  expect(virtuals.printed('hand-over-cancelled')).toHaveLength(0)
})
