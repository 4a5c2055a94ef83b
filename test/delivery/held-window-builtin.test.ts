// The window of jobs a printer's agent holds (src/dispatcher/held-window.ts) with the built-in agent,
// which keeps the jobs it holds in memory: a burst to a printer that takes a second a ticket waits
// PENDING in the hub past HELD_PER_PRINTER; once the printer is quick again, the jobs sent later,
// as it works through the ones its agent holds, print like the others: each once, in the order
// they were made. A real hub, its API, and the printer emulator over TCP (a model that confirms
// what it printed).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { HELD_PER_PRINTER } from '../../src/dispatcher/held-window.ts'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import { addBuiltinPrinter, jobBody, startTestHub, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

const PROFILE = 'epson-tm-t20iii'
/** Jobs in the burst, past the window. */
const JOBS = HELD_PER_PRINTER + 300
/** The printer's time on paper a job while the burst comes: the burst outpaces it whatever this machine's speed. */
const SLOW_PRINT_MS = 1_000

let h: TestHub
const printer = PrinterEmulator.listen({
  hostname: '127.0.0.1',
  port: 0,
  profile: findProfile(PROFILE)!,
  width: 80,
  printMs: SLOW_PRINT_MS,
  keep: { receipts: JOBS + 100, bytes: 64 * 1024 * 1024 },
})

beforeAll(async () => {
  h = await startTestHub({ env: { PRINTHUB_KEY_JOBS_PER_MINUTE: '100000' } })
})
afterAll(async () => {
  await h?.stop()
  printer.stop()
})

const marker = (n: number) => `window job ${String(n).padStart(5, '0')}.`

test('a burst past the window to a slow printer: at most HELD_PER_PRINTER with ' +
  'its agent, the rest waiting in the hub; all print once, in order', async () => {
  const printerId = await addBuiltinPrinter(h, 'slow', `tcp://127.0.0.1:${printer.port}`, PROFILE)
  const states = h.hub.store.jobStates
  // Read after each batch posted: the most the agent held, and whether jobs waited in the hub meanwhile.
  let mostHeld = 0
  let waitedInHub = false
  const markerOf = new Map<string, string>()
  for (let n = 0; n < JOBS; n += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, JOBS - n) }, async (_, i) => {
        const response = await h.request('POST', `/v1/projects/${h.projectId}/jobs`, {
          body: jobBody({
            printerId: 'slow',
            document: { width: 80, sections: [{ type: 'text', value: marker(n + i) }, { type: 'cut' }] },
          }),
        })
        expect(response.status).toBe(202)
        markerOf.set(((await response.json()) as { job: { id: string } }).job.id, marker(n + i))
      }),
    )
    const held = states.heldCount(printerId, HELD_PER_PRINTER + 100)
    mostHeld = Math.max(mostHeld, held)
    if (held === HELD_PER_PRINTER && (h.hub.store.jobs.queueLengths().get(printerId) ?? 0) > 0) waitedInHub = true
  }
  expect(waitedInHub).toBe(true)
  // A full window with the agent: a ticket that just printed leaves a place the hub fills at once with the next.
  const full = await waitFor(
    () => (states.heldCount(printerId, HELD_PER_PRINTER + 100) === HELD_PER_PRINTER ? true : undefined),
    5_000,
  )
  expect(full).toBe(true)
  printer.printTakes(0)

  const ids = [...markerOf.keys()]
  await waitFor(() => ids.every((id) => h.hub.store.jobs.get(id)!.state === 'COMPLETED'), 60_000)
  expect(mostHeld).toBe(HELD_PER_PRINTER)
  // A job is COMPLETED on the printer's confirmation, a moment before the connection that carried
  // it closes, where the printer files its receipt: wait for the receipts themselves, and for no
  // connection left open (nothing more on its way), before counting them.
  await waitFor(() => printer.receipts.length >= JOBS && printer.quiet, 10_000)
  // On the paper: every job once, in the order the hub made them (within a batch, not always the order posted).
  const seq = (id: string) =>
    h.hub.store.db.query<{ seq: number }, [string]>('SELECT seq FROM jobs WHERE id = ?').get(id)!.seq
  const madeOrder = ids.sort((a, b) => seq(a) - seq(b))
  const printed = printer.receipts.map(
    (receipt) => new TextDecoder('latin1').decode(receipt.bytes).match(/window job \d{5}\./)?.[0],
  )
  expect(printed).toHaveLength(JOBS)
  expect(printed).toEqual(madeOrder.map((id) => markerOf.get(id)))
}, 90_000)
