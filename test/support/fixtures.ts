// Named states of the world for tests, so that no test writes SQL of its own. A fixture goes
// through the store's (or the ledger's) own methods wherever they can reach the state; SQL is
// left only for what no public method does: counting, reading a row as it is stored (to check
// that nothing secret is in it), and breaking the database on purpose. Each fixture says in one
// line what it makes or reads.
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LedgerJob, Ledger, PrintJobPayload } from '../../src/agent/ledger.ts'
import type { LedgerState } from '../../src/agent/ledger-transitions.ts'
import { failure } from '../../src/protocol/failures.ts'
import type { Job, JobState } from '../../src/protocol/job.ts'
import { initialize } from '../../src/services/init.ts'
import { DATABASE_FILE, HUB_SCHEMA } from '../../src/store/database.ts'
import type { PrinterRecord } from '../../src/store/printers.ts'
import { Store } from '../../src/store/store.ts'

// ---- A store ----

export interface TestStore {
  store: Store
  dir: string
  /** The first start's project and the record ID of its demo printer. */
  projectId: string
  printerId: string
  close(): void
}

/**
 * A first-started hub store (one project, its demo printer) in a new temp directory, on the clock `now`, with a limit
 * of unfinished jobs per project (read at each submission).
 */
export async function firstStartedStore(
  now: () => number = Date.now,
  openJobLimit: () => number = () => 10_000,
): Promise<TestStore> {
  const dir = mkdtempSync(join(tmpdir(), 'printhub-test-'))
  const store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: openJobLimit, now })
  const { projectId } = await initialize(store, dir)
  const printerId = store.printers.resolve(projectId, 'demo')!.id
  return {
    store,
    dir,
    projectId,
    printerId,
    close() {
      store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

// ---- Printers ----

/** The printer now has `connection` (as `printhub printers edit` sets it); its other settings stay. */
export function setPrinterConnection(store: Store, printerId: string, connection: string): PrinterRecord {
  const printer = store.printers.get(printerId)
  if (!printer) throw new RangeError(`no printer ${printerId}`)
  return store.printers.update(printerId, {
    name: printer.name,
    connection,
    profile: printer.profile,
    width: printer.width,
  })!
}

// ---- Jobs ----

/** Where a fixture's job goes. */
export interface JobPlace {
  projectId: string
  /** The printer's record ID or remote ID. */
  printerId: string
}

export interface JobOptions {
  idempotencyKey?: string
  /** Default 5. */
  maxAttempts?: number
  /** Default 60 s; an EXPIRED job is always made already due. */
  expiresInMs?: number
  /** Attempts the hub gave up (retryably, as when its agent did not answer) before the job goes on to its state. */
  attemptsGivenUp?: number
  /** An operator asked to cancel it while its agent had it: only for DISPATCHING, DELIVERED and PRINTING. */
  cancelRequested?: boolean
}

/** The only states a cancellation can be asked for and still pending (elsewhere it cancels at once, or is too late). */
export const CANCEL_REQUESTABLE: readonly JobState[] = ['DISPATCHING', 'DELIVERED', 'PRINTING']

/** A new job in `state`, brought there by the store's own transitions, as the dispatcher would. */
export function jobInState(store: Store, place: JobPlace, state: JobState, options: JobOptions = {}): Job {
  const created = store.jobs.create({
    projectId: place.projectId,
    printerId: place.printerId,
    idempotencyKey: options.idempotencyKey ?? `fixture-${crypto.randomUUID()}`,
    document: { width: 80, sections: [{ type: 'text', value: `a job made ${state}` }, { type: 'cut' }] },
    metadata: null,
    expiresInMs: state === 'EXPIRED' ? 0 : (options.expiresInMs ?? 60_000),
    maxAttempts: options.maxAttempts ?? 5,
  })
  if (created.kind !== 'created') throw new Error(`jobInState: the store did not create the job (${created.kind})`)
  return driveJob(store, created.job.id, state, options)
}

/**
 * The PENDING job `jobId` moved on to `state` through the store's transitions (dispatched,
 * received, submitted...): COMPLETED and FAILED jobs had an attempt like any other, and EXPIRED
 * needs a job already due. Throws if a step changes nothing: the path broke, not the test.
 */
export function driveJob(
  store: Store,
  jobId: string,
  state: JobState,
  options: Pick<JobOptions, 'attemptsGivenUp' | 'cancelRequested'> = {},
): Job {
  const states = store.jobStates
  const initial = store.jobs.get(jobId)
  if (initial?.state !== 'PENDING')
    throw new RangeError(`driveJob: job ${jobId} is ${initial?.state ?? 'unknown'}, not PENDING`)
  let job: Job = initial
  if (options.cancelRequested && !CANCEL_REQUESTABLE.includes(state))
    throw new RangeError(`driveJob: a cancellation cannot be pending in ${state}`)
  const step = (what: string, result: Job | undefined): Job => {
    if (result === undefined) throw new Error(`driveJob: ${what} changed nothing on the way to ${state}`)
    return (job = result)
  }
  const at = () => Date.parse(job.updatedAt)
  const dispatch = () => step('dispatch', states.startAttempt(jobId)?.job)
  const requestCancel = () => {
    if (!options.cancelRequested) return
    const outcome = states.cancel(jobId)
    if (outcome.kind !== 'requested') throw new Error(`driveJob: asking to cancel gave ${outcome.kind}`)
    job = outcome.job
  }

  for (let i = 0; i < (options.attemptsGivenUp ?? 0); i++) {
    dispatch()
    step(
      'giving the attempt up',
      states.failAttempt(jobId, job.attemptCount, failure('agent.ack_timeout', 'The fixture gave this attempt up.'), 0),
    )
    if (job.state !== 'PENDING')
      throw new Error(`driveJob: giving attempt ${job.attemptCount} up made the job ${job.state}`)
  }
  switch (state) {
    case 'PENDING':
      return job
    case 'CANCELLED': {
      const outcome = states.cancel(jobId)
      if (outcome.kind !== 'cancelled') throw new Error(`driveJob: cancelling gave ${outcome.kind}`)
      return outcome.job
    }
    case 'EXPIRED':
      if (!states.expire(Number.MAX_SAFE_INTEGER).some((expired) => expired.id === jobId))
        throw new Error('driveJob: the job was not due to expire')
      return store.jobs.get(jobId)!
    case 'DISPATCHING':
      dispatch()
      requestCancel()
      return job
    case 'FAILED':
      dispatch()
      return step(
        'fail',
        states.failAttempt(
          jobId,
          job.attemptCount,
          failure('printer.invalid_connection', 'The fixture failed this job.'),
          0,
        ),
      )
    case 'DELIVERED':
      dispatch()
      step('receive', states.markReceived(jobId, job.attemptCount, at()))
      requestCancel()
      return job
    case 'PRINTING':
    case 'COMPLETED':
      dispatch()
      step('receive', states.markReceived(jobId, job.attemptCount, at()))
      requestCancel()
      step('submit', states.markSubmitted(jobId, job.attemptCount, at(), true))
      return state === 'PRINTING' ? job : step('complete', states.markCompleted(jobId, job.attemptCount, at()))
  }
}

/** How many jobs the hub holds, or how many with `idempotencyKey`. */
export function jobCount(store: Store, idempotencyKey?: string): number {
  const row =
    idempotencyKey === undefined
      ? store.db.query<{ n: number }, []>('SELECT count(*) AS n FROM jobs').get()
      : store.db
          .query<{ n: number }, [string]>('SELECT count(*) AS n FROM jobs WHERE idempotency_key = ?')
          .get(idempotencyKey)
  return row!.n
}

/** The state of the project's job with `idempotencyKey`, as stored; undefined when there is none. */
export function storedJobState(store: Store, projectId: string, idempotencyKey: string): JobState | undefined {
  return store.db
    .query<{ state: JobState }, [string, string]>('SELECT state FROM jobs WHERE project_id = ? AND idempotency_key = ?')
    .get(projectId, idempotencyKey)?.state
}

/** A broken disk for jobs: every new job fails to insert with `message`, until the returned function mends it. */
export function refuseJobInserts(store: Store, message: string): () => void {
  store.db.run(
    `CREATE TRIGGER refuse_jobs BEFORE INSERT ON jobs BEGIN SELECT
      RAISE(ABORT, '${message.replaceAll("'", "''")}'); END`,
  )
  return () => store.db.run('DROP TRIGGER refuse_jobs')
}

/**
 * A full database, as SQLite says it (SQLITE_FULL): no new page can be added (the page count is
 * capped at what the file holds now), until the returned function lifts the cap.
 */
export function fillDatabase(store: Store): () => void {
  store.commits.commit()
  const pages = store.db.query<{ page_count: number }, []>('PRAGMA page_count').get()!.page_count
  store.db.run(`PRAGMA max_page_count = ${pages}`)
  return () => void store.db.run('PRAGMA max_page_count = 4294967294')
}

// ---- What is stored, as stored (to check nothing secret is in the clear) ----

/** The agent's row as stored, every column, including those no API shows (its installation ID, its public key). */
export function storedAgentRow(store: Store, agentId: string): Record<string, unknown> | undefined {
  return (
    store.db.query<Record<string, unknown>, [string]>('SELECT * FROM agents WHERE id = ?').get(agentId) ?? undefined
  )
}

/** Every pairing code row as stored. */
export function storedPairingCodes(store: Store): Record<string, unknown>[] {
  return store.db.query<Record<string, unknown>, []>('SELECT * FROM pairing_codes').all()
}

/** Every row the hub keeps about the dashboard's password, sessions and admin tokens, as stored. */
export function storedAdminSecrets(store: Store): {
  settings: unknown[]
  adminSessions: unknown[]
  adminTokens: unknown[]
} {
  return {
    settings: store.db.query('SELECT * FROM settings').all(),
    adminSessions: store.db.query('SELECT * FROM admin_sessions').all(),
    adminTokens: store.db.query('SELECT * FROM admin_tokens').all(),
  }
}

// ---- The database file ----

/**
 * The data directory's database as a newer printhub leaves it: schema version `version`, beyond what this program
 * knows.
 */
export function writtenByNewerPrinthub(dataDir: string, version: number): void {
  const db = new Database(join(dataDir, DATABASE_FILE))
  try {
    db.run(`INSERT INTO ${HUB_SCHEMA.migrationsTable} (version, applied_at) VALUES (?, 0)`, [version])
  } finally {
    db.close()
  }
}

// ---- The agent's ledger ----

/** A small job as the hub sends it in `server.print_job`. */
export function printJobPayload(
  printerId: string,
  document: PrintJobPayload['document'] = { width: 80, sections: [{ type: 'text', value: 'a ledger job' }] },
): PrintJobPayload {
  const id = `job_${crypto.randomUUID().replaceAll('-', '')}.a1`
  return { jobId: id, idempotencyKey: id, printerId, createdAt: new Date().toISOString(), document }
}

/**
 * A new job in the ledger in `state`, through the ledger's own steps as the agent takes them
 * (received, claimed, then submitted or finished); each step that reports queues `report:<event>`.
 */
export function ledgerJobInState(
  ledger: Ledger,
  state: LedgerState,
  payload: PrintJobPayload = printJobPayload('printer-1'),
): LedgerJob {
  const received = ledger.receive(payload, `msg_${crypto.randomUUID().replaceAll('-', '')}`)
  if (received.kind !== 'new') throw new Error(`ledgerJobInState: the ledger did not take the job (${received.kind})`)
  const { seq } = received.job
  const step = (what: string, done: boolean) => {
    if (!done) throw new Error(`ledgerJobInState: ${what} did not apply on the way to ${state}`)
  }
  switch (state) {
    case 'received':
      break
    case 'failed':
    case 'cancelled':
      step(state, ledger.finish(seq, state === 'failed' ? 'fail' : 'cancel', [`report:${state}`]))
      break
    case 'submitting':
    case 'submitted':
    case 'completed':
      step('claim', ledger.claim(seq))
      if (state === 'submitted') step('submit', ledger.finish(seq, 'submit', ['report:submit']))
      if (state === 'completed') step('complete', ledger.finish(seq, 'complete', ['report:complete']))
      break
  }
  return ledger.job(payload.jobId)!
}

// ---- Accounts ----

/**
 * An admin token of a new account of `role` (named after it, unless `name`): what a script with
 * `printhub admin create-token --user NAME` has. The account has no password anyone knows.
 */
export function adminToken(
  store: Store,
  role: 'owner' | 'technician' | 'staff' = 'owner',
  name = `${role}-${crypto.randomUUID().slice(0, 8)}`,
): string {
  const user = store.commits.write(() => store.users.create(name, role, 'no password: a test account'))!
  return store.commits.write(() => store.adminTokens.create(user.id, 'tests')).secret
}
