// A job's log line names its printer both ways: the hub's record ID (`printer=prn_…`) and the
// project-local name applications use (`name=demo`), as the printer's own lines do. The name of a
// record never changes once it is made, so the store reads it at most once per printer in a
// process: a job's changes cost no read of the printer for their lines, even a printer removed
// since.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Log } from '../../src/platform/log.ts'
import { initialize } from '../../src/services/init.ts'
import { Store } from '../../src/store/store.ts'
import { jobInState } from '../support/fixtures.ts'

let dir: string
let store: Store
let projectId: string
let lines: string[]

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'printhub-test-'))
  lines = []
  const log = new Log({ format: 'text', level: 'info', journal: false }, (line) => lines.push(line))
  store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: 10_000, log: log.for('store') })
  ;({ projectId } = await initialize(store, dir))
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** How many reads of printers the store made while `run` ran. */
function printerReads(run: () => void): number {
  const db = store.db
  const original = db.query.bind(db)
  let reads = 0
  db.query = ((sql: string) => {
    if (/^SELECT .* FROM printers/s.test(sql)) reads++
    return original(sql)
  }) as typeof db.query
  try {
    run()
  } finally {
    db.query = original
  }
  return reads
}

const jobLines = (jobId: string) => lines.filter((line) => line.includes(` job job=${jobId} `))

test('each line of a job names its printer by record ID and by the project-local name', () => {
  const printer = store.printers.resolve(projectId, 'demo')!
  const job = jobInState(store, { projectId, printerId: 'demo' }, 'COMPLETED')
  store.commits.commit()
  const mine = jobLines(job.id)
  expect(mine.map((line) => line.replace(/^\S+ /, ''))).toEqual([
    `info  job job=${job.id} project=${projectId} printer=${printer.id} name=demo attempt=0 new -> PENDING`,
    `info  job job=${job.id} project=${projectId} printer=${printer.id} name=demo attempt=1 PENDING -> DISPATCHING`,
    `info  job job=${job.id} project=${projectId} printer=${printer.id} name=demo attempt=1 DISPATCHING -> DELIVERED`,
    `info  job job=${job.id} project=${projectId} printer=${printer.id} name=demo attempt=1 DELIVERED -> PRINTING`,
    `info  job job=${job.id} project=${projectId} printer=${printer.id} name=demo attempt=1 PRINTING -> COMPLETED`,
  ])
})

test('warnings and notes name it too; a job sent by record ID gets the name all the same', () => {
  const printer = store.printers.resolve(projectId, 'demo')!
  const failed = jobInState(store, { projectId, printerId: printer.id }, 'FAILED', { maxAttempts: 1 })
  const asked = jobInState(store, { projectId, printerId: printer.id }, 'DELIVERED', { cancelRequested: true })
  store.commits.commit()
  expect(jobLines(failed.id).at(-1)).toMatch(
    new RegExp(
      ` warn  job job=${failed.id} project=${projectId} printer=${printer.id} ` +
        `name=demo attempt=1 code=printer\\.invalid_connection DISPATCHING ` +
        `-> FAILED$`,
    ),
  )
  expect(jobLines(asked.id).at(-1)).toMatch(
    new RegExp(
      ` info  job job=${asked.id} project=${projectId} printer=${printer.id} ` +
        `name=demo attempt=1 DELIVERED: cancellation requested`,
    ),
  )
})

test('the lines cost no read of the printer once it is known, and a removed printer keeps its name in them', () => {
  const printer = store.printers.resolve(projectId, 'demo')!
  const job = jobInState(store, { projectId, printerId: 'demo' }, 'PENDING')
  store.commits.commit()
  // A fresh store in the same process knows nothing yet: the name is read once, then kept.
  store.close()
  lines = []
  const log = new Log({ format: 'text', level: 'info', journal: false }, (line) => lines.push(line))
  store = Store.open({ dataDir: dir, create: false, maxOpenJobsPerProject: 10_000, log: log.for('store') })
  expect(store.printers.remove(printer.id)).toBe(true)
  store.commits.commit()
  const first = printerReads(() => {
    store.jobStates.startAttempt(job.id)
    store.commits.commit()
  })
  expect(first).toBe(1)
  const after = printerReads(() => {
    store.jobStates.markReceived(job.id, 1, Date.now())
    store.jobStates.markSubmitted(job.id, 1, Date.now(), true)
    store.jobStates.markCompleted(job.id, 1, Date.now())
    store.commits.commit()
  })
  expect(after).toBe(0)
  expect(jobLines(job.id)).toHaveLength(4)
  for (const line of jobLines(job.id)) expect(line).toContain(` printer=${printer.id} name=demo attempt=1 `)
})

test('with the log below info, nothing is looked up for lines no one writes', () => {
  const job = jobInState(store, { projectId, printerId: 'demo' }, 'PENDING')
  store.commits.commit()
  store.close()
  lines = []
  const quiet = new Log({ format: 'text', level: 'warn', journal: false }, (line) => lines.push(line))
  store = Store.open({ dataDir: dir, create: false, maxOpenJobsPerProject: 10_000, log: quiet.for('store') })
  const reads = printerReads(() => {
    store.jobStates.startAttempt(job.id)
    store.commits.commit()
  })
  expect(reads).toBe(0)
  expect(jobLines(job.id)).toEqual([])
})
