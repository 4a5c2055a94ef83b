// What the dashboard reads from the store: every job's timeline (written by triggers, whatever
// changes the job), printer status history, the job list's filters, the settings it changes.
import { THE_MACHINE } from '../../src/services/actor.ts'
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { editableSettingsOf, type HubConfig, resolveConfig } from '../../src/hub/config.ts'
import { initialize } from '../../src/services/init.ts'
import { LiveSettings } from '../../src/services/live-settings.ts'
import { SqliteUnits } from '../../src/store/units.ts'
import type { NewJob } from '../../src/store/jobs.ts'
import { Store } from '../../src/store/store.ts'
import { tempDir } from '../support/hub.ts'

const liveSettings = (store: Store, config: Readonly<HubConfig>) =>
  LiveSettings.open(new SqliteUnits(store), editableSettingsOf(config), config.pinned)

let dir: string
let store: Store
let clock: number
let projectId: string
let printerId: string

beforeEach(async () => {
  dir = tempDir()
  clock = Date.parse('2026-11-21T18:00:00Z')
  store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: 10_000, now: () => clock })
  projectId = (await initialize(store, dir)).projectId
  printerId = store.printers.resolve(projectId, 'demo')!.id
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

const newJob = (key: string): NewJob => ({
  projectId,
  printerId,
  idempotencyKey: key,
  document: { width: 80, sections: [{ type: 'cut' }] },
  metadata: null,
  expiresInMs: 60_000,
  maxAttempts: 2,
})

describe('job timeline', () => {
  test('every step of every attempt, with the error that ended a failed one', async () => {
    const { job } = (await store.jobs.submit(newJob('a'))) as { job: { id: string } }
    const step = (ms: number) => (clock += ms)
    step(5)
    store.jobStates.startAttempt(job.id)
    step(10)
    store.jobStates.markReceived(job.id, 1, clock)
    step(20)
    store.jobStates.failAttempt(
      job.id,
      1,
      { code: 'printer.paper_out', message: 'Out of paper.', retryable: true },
      100,
    )
    step(200)
    store.jobStates.startAttempt(job.id)
    step(10)
    store.jobStates.markReceived(job.id, 2, clock)
    step(10)
    store.jobStates.markSubmitted(job.id, 2, clock, true)
    step(300)
    store.jobStates.markCompleted(job.id, 2, clock)
    store.commits.commit()
    const timeline = store.jobs.timeline(job.id)
    expect(timeline.map((e) => [e.state, e.attempt, e.errorCode])).toEqual([
      ['PENDING', 0, null],
      ['DISPATCHING', 1, null],
      ['DELIVERED', 1, null],
      ['PENDING', 1, 'printer.paper_out'],
      ['DISPATCHING', 2, null],
      ['DELIVERED', 2, null],
      ['PRINTING', 2, null],
      ['COMPLETED', 2, null],
    ])
    expect(timeline[3]!.errorMessage).toBe('Out of paper.')
    expect(Date.parse(timeline.at(-1)!.at) - Date.parse(timeline[0]!.at)).toBe(555)
  })

  test('a cancelled job carries no stale error; an expired one says why', async () => {
    const { job } = (await store.jobs.submit(newJob('b'))) as { job: { id: string } }
    store.jobStates.startAttempt(job.id)
    store.jobStates.failAttempt(job.id, 1, { code: 'printer.offline', message: 'Offline.', retryable: true }, 0)
    store.jobStates.cancel(job.id)
    const { job: other } = (await store.jobs.submit(newJob('c'))) as { job: { id: string } }
    clock += 60_001
    store.jobStates.expire(10)
    store.commits.commit()
    expect(store.jobs.timeline(job.id).map((e) => [e.state, e.errorCode])).toEqual([
      ['PENDING', null],
      ['DISPATCHING', null],
      ['PENDING', 'printer.offline'],
      ['CANCELLED', null],
    ])
    expect(store.jobs.timeline(other.id).map((e) => [e.state, e.errorCode])).toEqual([
      ['PENDING', null],
      ['EXPIRED', 'job.expired'],
    ])
  })
})

describe('job list filters', () => {
  test('by project, printer, state and time, newest first, with pages', async () => {
    for (const key of ['1', '2', '3']) {
      await store.jobs.submit(newJob(key))
      clock += 60_000
    }
    const all = store.jobs.find({}, 100)
    expect(all.map((j) => j.idempotencyKey)).toEqual(['3', '2', '1'])
    store.jobStates.cancel(all[1]!.id)
    store.commits.commit()
    expect(store.jobs.find({ state: 'CANCELLED' }, 100).map((j) => j.idempotencyKey)).toEqual(['2'])
    expect(store.jobs.find({ projectId, printerId }, 100)).toHaveLength(3)
    expect(store.jobs.find({ projectId: 'prj_other' }, 100)).toEqual([])
    expect(
      store.jobs
        .find({ createdFrom: Date.parse(all[1]!.createdAt), createdBefore: Date.parse(all[0]!.createdAt) }, 100)
        .map((j) => j.idempotencyKey),
    ).toEqual(['2'])
    expect(store.jobs.find({ beforeId: all[0]!.id }, 1).map((j) => j.idempotencyKey)).toEqual(['2'])
    expect(store.jobs.countByState(clock - 3_600_000)).toEqual({ PENDING: 2, CANCELLED: 1 })
    expect(store.jobs.queueLengths().get(printerId)).toBe(2)
  })
})

describe('printer status history', () => {
  test('one row per change, newest first', () => {
    for (const state of ['online', 'online', 'paper_low', 'paper_low', 'paper_out', 'online'] as const) {
      store.printerStates.record('agt_1', 'bar', state)
      clock += 1_000
    }
    expect(store.printerStates.history('agt_1', 'bar', 10).map((c) => c.state)).toEqual([
      'online',
      'paper_out',
      'paper_low',
      'online',
    ])
    expect(store.printerStates.history('agt_1', 'other', 10)).toEqual([])
  })
})

describe('settings changed in the dashboard', () => {
  test('applied at once, kept over a restart, and a setting the environment set stays as set', async () => {
    const config = resolveConfig({ data: dir }, { PRINTHUB_SERVER_NAME: 'From env' })
    const live = await liveSettings(store, config)
    expect(live.pinned).toEqual(['serverName'])
    expect(await live.update({ retryInitialMs: 500, retryMaxMs: 4_000 }, THE_MACHINE)).toMatchObject({ ok: true })
    expect(live.values).toMatchObject({ serverName: 'From env', retryInitialMs: 500, retryMaxMs: 4_000 })
    expect(await live.update({ serverName: 'Other' }, THE_MACHINE)).toEqual({
      ok: false,
      field: 'serverName',
      message: "is set by PRINTHUB_SERVER_NAME in the hub's environment",
    })
    expect(await live.update({ retryInitialMs: 5_000 }, THE_MACHINE)).toEqual({
      ok: false,
      field: 'retryMaxMs',
      message: 'must be at least the first retry delay',
    })
    expect(await live.update({ maxOpenJobsPerProject: 0 }, THE_MACHINE)).toMatchObject({
      ok: false,
      field: 'maxOpenJobsPerProject',
    })
    expect(await live.update({ maxOpenJobsPerProject: '5' }, THE_MACHINE)).toMatchObject({
      ok: false,
      field: 'maxOpenJobsPerProject',
    })
    expect(live.values.retryInitialMs).toBe(500)

    const restarted = await liveSettings(store, resolveConfig({ data: dir }, {}))
    expect(restarted.values).toMatchObject({ serverName: 'printhub', retryInitialMs: 500, retryMaxMs: 4_000 })
    expect(await restarted.update({ serverName: 'Bar Luna' }, THE_MACHINE)).toMatchObject({ ok: true })
    expect((await liveSettings(store, resolveConfig({ data: dir }, {}))).values.serverName).toBe('Bar Luna')
  })
})
