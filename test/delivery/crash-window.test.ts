// The window a crash leaves uncertain is as narrow as the agent can make it: the printer is
// reached and asked its status before the intent to print is recorded, so a hub killed (-9) while
// a printer is being reached leaves a job that was never written to it, which is printed once
// after the restart instead of failing as "may have printed"; a kill after the intent but before
// the job's hand-over mark (its first byte) leaves the same, as the marks show; and a kill after
// the printer confirmed the job but before the agent recorded it leaves it COMPLETED, as its
// printed mark shows.
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { HandOverMarks, marksFileOf } from '../../src/agent/hand-over-marks.ts'
import { bootId } from '../../src/platform/boot-id.ts'
import { DATABASE_FILE } from '../../src/store/database.ts'
import { RequestScanner } from '../../src/emulator/request-scanner.ts'
import { initialize } from '../../src/services/init.ts'
import { Store } from '../../src/store/store.ts'
import { durableView, openAfterCrash } from '../support/durable-view.ts'
import { jobBody, tempDir } from '../support/hub.ts'
import { spawnServe } from '../support/serve.ts'
import { waitFor } from '../support/wait.ts'

/**
 * A printer that answers status requests only once told to (until then it holds the first job's
 * connection). It files a job's bytes when their connection closes: after it confirmed the job.
 */
function hesitantPrinter() {
  const state = { answering: false, statusAsked: 0, jobs: [] as number[][], open: 0 }
  const listener = Bun.listen<{ scanner: RequestScanner; bytes: number[] }>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open: (socket) => {
        socket.data = { scanner: new RequestScanner(), bytes: [] }
        state.open++
      },
      data: (socket, chunk) => {
        const { requests, data } = socket.data.scanner.scan(chunk)
        socket.data.bytes.push(...data)
        for (const request of requests) {
          if (request.kind === 'status') {
            state.statusAsked++
            if (state.answering) socket.write(Uint8Array.of(0x12))
          } else if (state.answering) socket.write(Uint8Array.of(0x37, 0x22, ...request.id, 0x00))
        }
      },
      close: (socket) => {
        if (socket.data.bytes.length > 0) state.jobs.push(socket.data.bytes)
        state.open--
      },
    },
  })
  return { url: `tcp://127.0.0.1:${listener.port}`, state, stop: () => listener.stop(true) }
}

const printers: ReturnType<typeof hesitantPrinter>[] = []
const dirs: string[] = []
afterAll(() => {
  for (const printer of printers) printer.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/**
 * A hub killed (-9) while its printer is asked its status for the job's first attempt; `leave`
 * then makes what else the kill leaves on disk. Started again with the printer answering: how the
 * job ended, and how often it was printed.
 */
async function killedWhileReaching(
  leave: (dir: string) => void,
): Promise<{ job: { state: string; lastErrorCode: string | null }; printed: number }> {
  const printer = hesitantPrinter()
  const dir = tempDir()
  printers.push(printer)
  dirs.push(dir)
  const store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: 10_000 })
  const init = await initialize(store, dir)
  if (!init.created) throw new Error('expected a first start')
  store.printers.add({
    projectId: init.projectId,
    remoteId: 'kitchen',
    name: null,
    connection: printer.url,
    profile: 'epson-tm-m30iii',
    width: 80,
    agentId: store.agents.builtin()!.id,
  })
  store.close()
  let hub = await spawnServe(dir)
  const jobs = `/v1/projects/${init.projectId}/jobs`
  const headers = { authorization: `Bearer ${init.apiKey}`, 'content-type': 'application/json' }
  const posted = await fetch(hub.url + jobs, {
    method: 'POST',
    headers,
    body: JSON.stringify(jobBody({ printerId: 'kitchen' })),
  })
  expect(posted.status).toBe(202)
  const { job } = (await posted.json()) as { job: { id: string } }
  // The agent has stored the job (on disk, as a kill -9 leaves it: the hub may take its first
  // requests a moment before its own agent's printers are known, and the job waits for them) and
  // its printer is asked its status, which it does not answer yet (a printer waking up, a slow
  // link). The job's own first byte would follow the answer, or the status timeout (500 ms).
  await waitFor(() => (printer.state.statusAsked > 0 && storedByAgent(dir)) || undefined, 10_000)
  hub.process.kill('SIGKILL')
  await hub.process.exited
  expect(printer.state.jobs).toEqual([])
  leave(dir)

  printer.state.answering = true
  hub = await spawnServe(dir)
  try {
    const done = await waitFor(async () => {
      const listed = (await (await fetch(hub.url + jobs, { headers })).json()) as {
        jobs: { id: string; state: string; lastErrorCode: string | null }[]
      }
      const found = listed.jobs.find((j) => j.id === job.id)!
      return found.state === 'COMPLETED' || found.state === 'FAILED' ? found : undefined
    }, 15_000)
    // COMPLETED comes with the printer's confirmation, before the job's connection closes and the
    // printer files it: count once no connection is open (every one the job had has closed).
    await waitFor(() => printer.state.open === 0, 5_000)
    return { job: done, printed: printer.state.jobs.length }
  } finally {
    await hub.stop()
  }
}

/**
 * Whether the built-in agent has the job and has not started it, as another process reads the
 * file: the hub's row says DELIVERED (the agent's receipt is that row), and the agent has no
 * record of intent for it.
 */
function storedByAgent(dir: string): boolean {
  return durableView(dir, (db) => {
    const delivered = db.query<{ n: number }, []>("SELECT count(*) AS n FROM jobs WHERE state = 'DELIVERED'").get()!.n
    const intents = db.query<{ n: number }, []>('SELECT count(*) AS n FROM ledger_intents').get()!.n
    return delivered === 1 && intents === 0
  })
}

/** What a kill right after the intent to print was flushed leaves: the agent's record of intent (`submitting`). */
function claimed(dir: string, state: 'submitting' | 'submitted' = 'submitting'): void {
  const db = openAfterCrash(dir)
  try {
    const job = db
      .query<{ id: string; attempt: number; printer: string }, []>(
        `SELECT j.id, j.attempt_count AS attempt, p.agent_printer_id AS printer
          FROM jobs j JOIN printers p ON p.id = j.printer_id WHERE j.state =
          'DELIVERED'`,
      )
      .get()!
    const wireId = `${job.id}.a${job.attempt}`
    const now = Date.now()
    db.run(
      `INSERT INTO ledger_intents (seq, job_id, idempotency_key, printer_id,
        source_message_id, state, received_at, updated_at) VALUES (1, ?, ?, ?,
        ?, ?, ?, ?)`,
      [wireId, wireId, job.printer, `m.${wireId}`, state, now, now],
    )
  } finally {
    db.close(true)
  }
}

/**
 * What a kill right after the printer confirmed the job leaves: every byte written (`submitted`),
 * and the run's marks saying the job printed (the agent writes that mark the moment the printer
 * confirms, before it records the result).
 */
function confirmed(dir: string): void {
  claimed(dir, 'submitted')
  // The run the ledger names, in this boot: the marks the next start trusts.
  const db = openAfterCrash(dir)
  const run = db
    .query<{ value: string }, []>("SELECT value FROM ledger_settings WHERE key = 'hand_over_marks_run'")
    .get()!.value
  db.close(true)
  const marks = HandOverMarks.begin(marksFileOf(join(dir, DATABASE_FILE)), { run, boot: bootId()! })
  marks.mark('kitchen', 1)
  marks.printed('kitchen', 1)
  marks.close()
}

test('killed while the printer is asked its status, before a byte of the job: ' +
  'printed once after the restart, not uncertain', async () => {
  const outcome = await killedWhileReaching(() => {})
  expect(outcome).toEqual({ job: expect.objectContaining({ state: 'COMPLETED', lastErrorCode: null }), printed: 1 })
}, 60_000)

test('killed after the intent to print and before the job was handed to its ' +
  'printer (no hand-over mark): printed once, not uncertain', async () => {
  const outcome = await killedWhileReaching(claimed)
  expect(outcome).toEqual({ job: expect.objectContaining({ state: 'COMPLETED', lastErrorCode: null }), printed: 1 })
}, 60_000)

test('the same without the hand-over marks to trust (a power cut would lose ' +
  'them): FAILED job.recovery_uncertain, never printed twice', async () => {
  const outcome = await killedWhileReaching((dir) => {
    claimed(dir)
    rmSync(marksFileOf(join(dir, DATABASE_FILE)))
  })
  expect(outcome).toEqual({
    job: expect.objectContaining({ state: 'FAILED', lastErrorCode: 'job.recovery_uncertain' }),
    printed: 0,
  })
}, 60_000)

test('killed after the printer confirmed the job and before the agent recorded ' +
  'it (its printed mark): COMPLETED, not uncertain, not sent again', async () => {
  const outcome = await killedWhileReaching(confirmed)
  expect(outcome).toEqual({ job: expect.objectContaining({ state: 'COMPLETED', lastErrorCode: null }), printed: 0 })
}, 60_000)

test('the same without its printed mark: FAILED job.recovery_uncertain, not sent again', async () => {
  const outcome = await killedWhileReaching((dir) => claimed(dir, 'submitted'))
  expect(outcome).toEqual({
    job: expect.objectContaining({ state: 'FAILED', lastErrorCode: 'job.recovery_uncertain' }),
    printed: 0,
  })
}, 60_000)
