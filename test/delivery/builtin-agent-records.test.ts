// The built-in agent tells its hub of a receipt or a report without waiting for the disk
// (BuiltinLedger.tellsHubAtOnce): the hub writes what it is told in the transactions its agent's
// ledger writes in, so a committed state never has the hub's record of a job ahead of the
// ledger's (a receipt is the hub's own row: the built-in agent's record of a job starts with its
// intent to print). A log is written and recovered in order, so nothing a crash leaves on disk can
// have it either. Checked
// on what is durable (the database and its redo log, as a start after a crash reads them), again and
// again while jobs go through two TCP printers that confirm what they printed: one at once (its
// jobs are recorded printed in one go, src/agent/prompt-confirmation.ts), one after 20 ms of
// printing (its jobs are recorded PRINTING first).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import { durableView } from '../support/durable-view.ts'
import { addBuiltinPrinter, startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

const JOBS_PER_PRINTER = 60

/** Jobs whose state at the hub says more than their agent's ledger does (a job's wire ID is its ID and attempt). */
const HUB_AHEAD_OF_LEDGER = `
  SELECT j.id, j.state, l.state AS ledger FROM jobs j
  LEFT JOIN ledger_intents l ON l.job_id = j.id || '.a' || j.attempt_count
  WHERE (j.state = 'PRINTING' AND coalesce(l.state, '') NOT IN ('submitted', 'completed'))
    OR (j.state = 'COMPLETED' AND coalesce(l.state, '') <> 'completed')`

let t: TestHub
const emulators: PrinterEmulator[] = []
beforeAll(async () => {
  t = await startTestHub()
  for (const [name, printMs] of [
    ['one', 0],
    ['two', 20],
  ] as const) {
    const emulator = PrinterEmulator.listen({
      hostname: '127.0.0.1',
      port: 0,
      profile: findProfile('epson-tm-t20iii')!,
      width: 80,
      printMs,
    })
    emulators.push(emulator)
    await addBuiltinPrinter(t, name, `tcp://127.0.0.1:${emulator.port}`, 'epson-tm-t20iii')
  }
})
afterAll(async () => {
  await t.stop()
  for (const emulator of emulators) emulator.stop()
})

test('no committed state has the hub ahead of its built-in agent: every byte ' +
  'taken before PRINTING, confirmed before COMPLETED', async () => {
  // The built-in agent's ledger is in the hub's database; what is durable of it is read as a start after a crash
  // would find it (the file and its redo log).
  const ahead: unknown[] = []
  const seen = new Set<string>()
  let looks = 0
  let flowing = true
  let submitted: { id: string }[] = []
  const watch = (async () => {
    while (flowing) {
      durableView(t.dataDir, (reader) => {
        ahead.push(...reader.query(HUB_AHEAD_OF_LEDGER).all())
        for (const { state } of reader
          .query<{ state: string }, []>("SELECT DISTINCT state FROM jobs WHERE state IN ('DELIVERED', 'PRINTING')")
          .all())
          seen.add(state)
      })
      looks++
      await Bun.sleep(0)
    }
  })()
  try {
    submitted = await Promise.all(
      ['one', 'two'].flatMap((printerId) =>
        Array.from({ length: JOBS_PER_PRINTER }, (_, i) =>
          submitJob(t, {
            printerId,
            document: { width: 80, sections: [{ type: 'text', value: `${printerId} ${i}` }, { type: 'cut' }] },
          }),
        ),
      ),
    )
    await waitFor(() => submitted.every((job) => t.hub.store.jobs.get(job.id)!.state === 'COMPLETED'), 20_000)
  } finally {
    flowing = false
    await watch
  }
  expect(ahead).toEqual([])
  // The check saw the jobs on their way, not only before and after.
  expect(looks).toBeGreaterThan(20)
  expect([...seen].sort()).toEqual(['DELIVERED', 'PRINTING'])
  // Each printer filed every ticket (a job may be COMPLETED a moment before its connection closes).
  await waitFor(() => emulators.every((emulator) => emulator.quiet), 5_000)
  expect(emulators.map((emulator) => emulator.receipts.length)).toEqual([JOBS_PER_PRINTER, JOBS_PER_PRINTER])
  // And the check does find a hub ahead of its ledger: one planted after the run.
  const planted = submitted[0]!.id
  t.hub.store.db.run("UPDATE ledger_intents SET state = 'submitted' WHERE job_id = ?", [`${planted}.a1`])
  expect(t.hub.store.db.query(HUB_AHEAD_OF_LEDGER).all()).toEqual([
    { id: planted, state: 'COMPLETED', ledger: 'submitted' },
  ])
}, 30_000)
