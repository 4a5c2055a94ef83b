// Retention on both stores, as the hub's (and a cluster's maintenance node's) housekeeping runs it: finished jobs
// past the retention period go with their documents and are remembered as pruned, unfinished ones stay whatever
// their age; a project over its history budget loses its oldest finished jobs first; old events go, and a stream
// resuming from before them is told where the log starts now.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Log } from '../../src/platform/log.ts'
import type { Job } from '../../src/protocol/job.ts'
import type { Actor } from '../../src/services/actor.ts'
import { Housekeeping } from '../../src/services/housekeeping.ts'
import { JobService } from '../../src/services/jobs.ts'
import { PrinterService } from '../../src/services/printers.ts'
import { ProjectService } from '../../src/services/projects.ts'
import type { UnitRunner } from '../../src/storage/repositories.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { bothEngines, ENGINE_START, type Engine } from '../support/engines.ts'
import { tempDir } from '../support/hub.ts'

const ACTOR: Actor = { userId: 'usr_1', user: 'kim', address: '192.168.1.20' }
const ENGINES = bothEngines()
const AGENT = { name: 'hub', version: '1', platform: 'linux', installationId: 'inst', publicKey: 'A'.repeat(43) }
const DAY = 86_400_000
const QUIET = new Log({ format: 'text', level: 'error', journal: false }, () => {}).for('retention')

for (const [name, open] of Object.entries(ENGINES)) {
  describe(`retention on ${name}`, () => {
    let engine: Engine
    let units: UnitRunner
    let jobs: JobService
    let projectId: string
    let clock = Date.parse(ENGINE_START)
    let n = 0

    beforeAll(async () => {
      engine = await open()
      units = engine.units
      jobs = new JobService({ units, listener: { jobCreated() {}, cancelRequested() {} } })
      const made = await new ProjectService(units).create(ACTOR, 'Bar Luna')
      if (made.kind !== 'created') throw new Error(made.kind)
      projectId = made.project.id
      await units.write((db) => db.agents.insert(AGENT, 0, { builtin: true }))
      // Printed tickets go to the kitchen; one left waiting, to the bar.
      for (const id of ['kitchen', 'bar']) {
        const added = await new PrinterService(units, jobs).add(
          ACTOR,
          projectId,
          { id, connection: 'virtual' },
          confinementOf(tempDir(), []),
        )
        if (added.kind !== 'added') throw new Error(added.kind)
      }
    })

    afterAll(async () => {
      await engine?.close()
    })

    const advance = (ms: number) => {
      clock += ms
      engine.advance(ms)
    }
    const housekeeping = (historyBytes = Number.MAX_SAFE_INTEGER) =>
      new Housekeeping(units, {
        retentionDays: () => 30,
        historyBytesPerProject: () => historyBytes,
        diskLow: () => false,
        now: () => clock,
        log: QUIET,
      })
    /** A job printed now, or (`printed` false) left waiting. */
    const job = async (printed = true): Promise<Job> => {
      const outcome = await jobs.submit({
        projectId,
        printerId: printed ? 'kitchen' : 'bar',
        idempotencyKey: `order-${++n}`,
        document: { width: 80, sections: [{ type: 'text', value: `Ticket ${n}: ${'café '.repeat(40)}` }] },
        expiresInMs: 60 * DAY,
      })
      if (outcome.kind !== 'created') throw new Error(outcome.kind)
      if (!printed) return outcome.job
      const attempt = await units.write((db) => db.jobStates.claim(outcome.job.printerId))
      if (attempt?.job.id !== outcome.job.id) throw new Error('not claimed')
      return (await units.write((db) => db.jobStates.markCompleted(outcome.job.id, 1, clock)))!
    }
    const exists = async (id: string) => (await units.read((db) => db.jobs.get(id))) !== undefined

    test('finished jobs past the period go, remembered as pruned; an unfinished one stays; old events go', async () => {
      const old = [await job(), await job()]
      const waiting = await job(false)
      advance(31 * DAY)
      const recent = await job()
      const result = await housekeeping().pass()
      expect(result.jobs).toBe(2)
      for (const gone of old) {
        expect(await exists(gone.id)).toBe(false)
        expect(await units.read((db) => db.jobs.wasPruned(projectId, gone.id))).toBe(true)
      }
      expect(await exists(waiting.id)).toBe(true)
      expect(await exists(recent.id)).toBe(true)
      // The events of a week ago went too: a stream resuming from before them starts after the newest gone.
      const pruned = await units.read((db) => db.events.prunedThrough(projectId))
      expect(pruned).toBeGreaterThan(0)
      const left = await units.read((db) => db.events.after(projectId, 0, 100))
      expect(left.every((event) => event.id > pruned)).toBe(true)
      expect(left.some((event) => 'job' in event && event.job.id === recent.id)).toBe(true)
      // Nothing more to do.
      expect((await housekeeping().pass()).jobs).toBe(0)
    })

    test('a project over its history budget loses its oldest finished jobs first, within the period', async () => {
      const first = await job()
      const second = await job()
      const budget = (await units.read((db) => db.retention.finishedBytes(projectId))) - 1
      const result = await housekeeping(budget).pass()
      // One byte over: the oldest finished job (the last test's) goes, and it is enough.
      expect(result.overBudget).toBe(1)
      expect(await units.read((db) => db.retention.finishedBytes(projectId))).toBeLessThanOrEqual(budget)
      expect(await exists(first.id)).toBe(true)
      expect(await exists(second.id)).toBe(true)
    })
  })
}
