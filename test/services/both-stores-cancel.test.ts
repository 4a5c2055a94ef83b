// An application's cancellation on both stores (DELETE of the public API): a PENDING job at once; a dispatched one
// asked of its agent, whose answer is waited for (on PostgreSQL it may come from the node that holds the agent); no
// answer in time is said as pending; a job its agent holds is not cancellable; a fan-out cancels its children.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { PrintDocument } from '../../src/protocol/document.ts'
import type { Actor } from '../../src/services/actor.ts'
import { DestinationService } from '../../src/services/destinations.ts'
import { JobService } from '../../src/services/jobs.ts'
import { PrinterService } from '../../src/services/printers.ts'
import { ProjectService } from '../../src/services/projects.ts'
import type { UnitRunner } from '../../src/storage/repositories.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { bothEngines, type Engine } from '../support/engines.ts'
import { tempDir } from '../support/hub.ts'

const ACTOR: Actor = { userId: 'usr_1', user: 'kim', address: '192.168.1.20' }
const ENGINES = bothEngines()
const AGENT = { name: 'hub', version: '1', platform: 'linux', installationId: 'inst', publicKey: 'A'.repeat(43) }
const DOCUMENT: PrintDocument = { width: 80, sections: [{ type: 'text', value: 'Tarte flambée' }, { type: 'cut' }] }

for (const [name, open] of Object.entries(ENGINES)) {
  describe(`an application's cancellation on ${name}`, () => {
    let engine: Engine
    let units: UnitRunner
    let jobs: JobService
    let projectId: string
    let asked = 0
    let n = 0

    beforeAll(async () => {
      engine = await open()
      units = engine.units
      jobs = new JobService({ units, listener: { jobCreated() {}, cancelRequested: () => void asked++ } })
      const made = await new ProjectService(units).create(ACTOR, 'Bar Luna')
      if (made.kind !== 'created') throw new Error(made.kind)
      projectId = made.project.id
      await units.write((db) => db.agents.insert(AGENT, 0, { builtin: true }))
      for (const id of ['kitchen', 'bar']) {
        const added = await new PrinterService(units, jobs).add(
          ACTOR,
          projectId,
          { id, connection: 'virtual' },
          confinementOf(tempDir(), []),
        )
        if (added.kind !== 'added') throw new Error(added.kind)
      }
      await new DestinationService(units).create(ACTOR, projectId, 'everywhere', {
        mode: 'all',
        printers: ['kitchen', 'bar'],
      })
    })

    afterAll(async () => {
      await engine?.close()
    })

    const submit = async (printerId = 'kitchen') => {
      const outcome = await jobs.submit({ projectId, printerId, idempotencyKey: `order-${++n}`, document: DOCUMENT })
      if (outcome.kind !== 'created') throw new Error(outcome.kind)
      return outcome.job
    }
    const dispatched = async () => {
      const job = await submit()
      const attempt = await units.write((db) => db.jobStates.claim(job.printerId))
      if (attempt?.job.id !== job.id) throw new Error('the job was not dispatched')
      return job
    }

    test('a PENDING job at once; another project, or no such job, is unknown', async () => {
      const job = await submit()
      expect(await jobs.cancelForApplication('prj_other', job.id)).toEqual({ kind: 'unknown' })
      expect(await jobs.cancelForApplication(projectId, 'job_none')).toEqual({ kind: 'unknown' })
      expect(await jobs.cancelForApplication(projectId, job.id)).toMatchObject({
        kind: 'cancelled',
        job: { id: job.id, state: 'CANCELLED' },
      })
      expect(asked).toBe(0)
    })

    test("a dispatched one: its agent is asked, and its answer, from another node too, is the outcome's", async () => {
      const job = await dispatched()
      const other = await engine.node()
      const answering = (async () => {
        while ((await other.read((db) => db.jobStates.cancelRequests())).length === 0) await Bun.sleep(5)
        return other.write((db) => db.jobStates.markCancelled(job.id))
      })()
      const outcome = await jobs.cancelForApplication(projectId, job.id, 10_000)
      expect(outcome).toMatchObject({ kind: 'cancelled', job: { id: job.id, state: 'CANCELLED' } })
      expect(await answering).toMatchObject({ state: 'CANCELLED' })
      expect(asked).toBe(1)
    })

    test('no answer in time: pending, still asked once its agent holds it; a held job not cancellable', async () => {
      const job = await dispatched()
      expect(await jobs.cancelForApplication(projectId, job.id, 50)).toMatchObject({
        kind: 'pending',
        job: { state: 'DISPATCHING' },
      })
      // Its agent stored it since: the request stands, its agent may still stop it.
      await units.write((db) => db.jobStates.markReceived(job.id, 1, 0))
      expect(await jobs.cancelForApplication(projectId, job.id, 50)).toMatchObject({
        kind: 'pending',
        job: { state: 'DELIVERED' },
      })
      await units.write((db) => db.jobStates.markCompleted(job.id, 1, 0))
      const held = await dispatched()
      await units.write((db) => db.jobStates.markReceived(held.id, 1, 0))
      expect(await jobs.cancelForApplication(projectId, held.id, 50)).toMatchObject({
        kind: 'not_cancellable',
        job: { state: 'DELIVERED' },
      })
      await units.write((db) => db.jobStates.markCompleted(held.id, 1, 0))
    })

    test("a fan-out: its children cancelled, and so is it; a child's answer pending makes it pending", async () => {
      const outcome = await jobs.submit({
        projectId,
        printerId: 'everywhere',
        idempotencyKey: 'fan',
        document: DOCUMENT,
      })
      if (outcome.kind !== 'created') throw new Error(outcome.kind)
      expect(await jobs.cancelForApplication(projectId, outcome.job.id)).toMatchObject({
        kind: 'cancelled',
        job: { id: outcome.job.id, state: 'CANCELLED' },
      })
      const again = await jobs.submit({
        projectId,
        printerId: 'everywhere',
        idempotencyKey: 'fan-2',
        document: DOCUMENT,
      })
      if (again.kind !== 'created') throw new Error(again.kind)
      const got = await jobs.get(projectId, again.job.id)
      await units.write((db) => db.jobStates.claim(got!.children![0]!.printerId))
      expect(await jobs.cancelForApplication(projectId, again.job.id, 50)).toMatchObject({ kind: 'pending' })
      expect(await jobs.cancelForApplication('prj_other', again.job.id)).toEqual({ kind: 'unknown' })
    })
  })
}
