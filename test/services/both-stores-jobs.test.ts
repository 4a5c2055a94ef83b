// Submitting jobs on both stores: a job to a printer, to a failover destination, to every printer of a destination,
// each with its project's event and its webhooks' deliveries in the same change; and idempotency held by the
// database: thirty submissions of one key at once, spread over three nodes, make one job and 29 duplicates.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { PrintDocument } from '../../src/protocol/document.ts'
import type { Actor } from '../../src/services/actor.ts'
import { DestinationService } from '../../src/services/destinations.ts'
import { JobQueries } from '../../src/services/job-queries.ts'
import { JobService, type SubmitOutcome } from '../../src/services/jobs.ts'
import { PrinterService } from '../../src/services/printers.ts'
import { WebhookService } from '../../src/services/project-webhooks.ts'
import { ProjectService } from '../../src/services/projects.ts'
import type { UnitRunner } from '../../src/storage/repositories.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { bothEngines, type Engine } from '../support/engines.ts'
import { tempDir } from '../support/hub.ts'

const ACTOR: Actor = { userId: 'usr_1', user: 'kim', address: '192.168.1.20' }
const ENGINES = bothEngines()
const AGENT = { name: 'hub', version: '1', platform: 'linux', installationId: 'inst', publicKey: 'A'.repeat(43) }
const DOCUMENT: PrintDocument = { width: 80, sections: [{ type: 'text', value: 'Café crème ×2' }, { type: 'cut' }] }

const jobsOn = (units: UnitRunner, told: string[] = []) =>
  new JobService({ units, listener: { jobCreated: (printerId) => void told.push(printerId), cancelRequested() {} } })

for (const [name, open] of Object.entries(ENGINES)) {
  describe(`submitting jobs on ${name}`, () => {
    let engine: Engine
    let projectId: string
    const printers: Record<string, string> = {}
    const told: string[] = []
    let jobs: JobService

    beforeAll(async () => {
      engine = await open()
      jobs = jobsOn(engine.units, told)
      const made = await new ProjectService(engine.units).create(ACTOR, 'Bar Luna')
      if (made.kind !== 'created') throw new Error(made.kind)
      projectId = made.project.id
      await engine.units.write((db) => db.agents.insert(AGENT, 0, { builtin: true }))
      const service = new PrinterService(engine.units, jobs)
      for (const id of ['kitchen', 'bar']) {
        const added = await service.add(ACTOR, projectId, { id, connection: 'virtual' }, confinementOf(tempDir(), []))
        if (added.kind !== 'added') throw new Error(added.kind)
        printers[id] = added.printer.id
      }
      const destinations = new DestinationService(engine.units)
      await destinations.create(ACTOR, projectId, 'everywhere', { mode: 'all', printers: ['kitchen', 'bar'] })
      await destinations.create(ACTOR, projectId, 'front', { mode: 'failover', printers: ['bar', 'kitchen'] })
    })

    afterAll(async () => {
      await engine?.close()
    })

    const submit = (printerId: string, idempotencyKey: string, on = jobs) =>
      on.submit({ projectId, printerId, idempotencyKey, document: DOCUMENT, metadata: { order: '42' } })

    test('a job: PENDING on its printer, its document as sent, its event and webhook delivery with it', async () => {
      const hooks = new WebhookService(engine.units, Date.now)
      await hooks.create(ACTOR, projectId, { url: 'https://pos.example/h', events: ['job.created'], description: null })
      const outcome = await submit('kitchen', 'order-1')
      if (outcome.kind !== 'created') throw new Error(outcome.kind)
      expect(outcome.job).toMatchObject({
        projectId,
        printerId: printers.kitchen!,
        state: 'PENDING',
        metadata: { order: '42' },
        attemptCount: 0,
      })
      expect(told).toEqual([printers.kitchen!])
      expect(await engine.units.read((db) => db.jobs.get(outcome.job.id))).toEqual(outcome.job)
      expect(await engine.units.read((db) => db.jobs.document(outcome.job.id))).toEqual(DOCUMENT)
      const events = await engine.units.read((db) => db.events.after(projectId, 0, 10))
      expect(events).toMatchObject([{ type: 'job.created', job: outcome.job }])
      const [frame] = await engine.units.read((db) => db.events.frames(projectId, 0, 10))
      expect(frame!.frame).toBe(`id: ${events[0]!.id}\nevent: job.created\ndata: ${JSON.stringify(events[0])}\n\n`)
      const [report] = await hooks.reports()
      expect(report!.deliveries.map((d) => [d.messageId, d.type])).toEqual([[`evt_${events[0]!.id}`, 'job.created']])
      expect(await submit('nowhere', 'order-2')).toEqual({ kind: 'unknown_printer', printerId: 'nowhere' })
    })

    test('thirty submissions of one key at once, spread over three nodes: one job, 29 duplicates', async () => {
      const nodes = [jobs, jobsOn(await engine.node()), jobsOn(await engine.node())]
      const outcomes: SubmitOutcome[] = await Promise.all(
        Array.from({ length: 30 }, (_, i) => submit('bar', 'retried-order', nodes[i % 3])),
      )
      const created = outcomes.filter((o) => o.kind === 'created')
      const duplicates = outcomes.filter((o) => o.kind === 'duplicate')
      expect([created.length, duplicates.length]).toEqual([1, 29])
      const id = (created[0] as { job: { id: string } }).job.id
      expect(new Set(duplicates.map((o) => (o as { job: { id: string } }).job.id))).toEqual(new Set([id]))
      const events = await engine.units.read((db) => db.events.after(projectId, 0, 100))
      expect(events.filter((event) => event.type === 'job.created' && event.job.id === id)).toHaveLength(1)
    })

    test('to every printer of a destination: a parent and a child per printer; again, the same parent', async () => {
      const outcome = await submit('everywhere', 'order-3')
      if (outcome.kind !== 'created') throw new Error(outcome.kind)
      expect(outcome.job).toMatchObject({ printerId: 'everywhere', state: 'PENDING' })
      const children = await engine.units.read((db) => db.fanOuts.children(outcome.job.id))
      expect(children.map((child) => [child.printerId, child.idempotencyKey])).toEqual([
        [printers.kitchen!, `${outcome.job.id}/${printers.kitchen!}`],
        [printers.bar!, `${outcome.job.id}/${printers.bar!}`],
      ])
      expect(await submit('everywhere', 'order-3')).toEqual({ kind: 'duplicate', job: outcome.job })
      const events = await engine.units.read((db) => db.events.after(projectId, 0, 100))
      expect(events.slice(-3).map((event) => (event.type === 'job.created' ? event.job.id : event.type))).toEqual([
        outcome.job.id,
        children[0]!.id,
        children[1]!.id,
      ])
    })

    test("to a failover destination: on its first printer, keeping the destination's name as asked", async () => {
      const outcome = await submit('front', 'order-4')
      if (outcome.kind !== 'created') throw new Error(outcome.kind)
      expect(outcome.job.printerId).toBe(printers.bar!)
    })

    test('read back: newest first, a page at a time, by state, printer, metadata; a detail and its links', async () => {
      const queries = new JobQueries(engine.units)
      const newest = await queries.newest(projectId)
      // The fan-out's children (its parent is not a job that prints), the last made first.
      const parentId = newest[1]!.idempotencyKey.split('/')[0]!
      expect(newest.map((job) => job.idempotencyKey)).toEqual([
        'order-4',
        `${parentId}/${printers.bar}`,
        `${parentId}/${printers.kitchen}`,
        'retried-order',
        'order-1',
      ])
      const first = await queries.page({ projectId }, 2)
      expect(first.jobs).toEqual(newest.slice(0, 2))
      const second = await queries.page({ projectId, before: first.next! }, 10)
      expect(second).toEqual({ jobs: newest.slice(2), next: null })
      expect((await queries.page({ projectId, printerId: printers.kitchen! }, 10)).jobs.map((job) => job.id)).toEqual(
        newest.filter((job) => job.printerId === printers.kitchen).map((job) => job.id),
      )
      expect((await queries.page({ projectId, metadata: [['order', '42']], state: 'PENDING' }, 10)).jobs).toHaveLength(
        5,
      )
      expect((await queries.page({ projectId, metadata: [['order', '43']] }, 10)).jobs).toEqual([])
      const parents = await queries.page({ projectId, fanOut: true }, 10)
      expect(parents.jobs.map((job) => job.printerId)).toEqual(['everywhere'])
      expect(await queries.fanOutPosition(parents.jobs[0]!.id)).toBeGreaterThan(0)
      expect((await queries.fanOutPage({ metadataPrefix: '4' }, 10)).jobs).toEqual(parents.jobs)
      expect((await queries.find({ projectId, metadataPrefix: '4' }, 3)).map((job) => job.id)).toEqual(
        newest.slice(0, 3).map((job) => job.id),
      )
      const [child] = await engine.units.read((db) => db.fanOuts.children(parents.jobs[0]!.id))
      const detail = await queries.detail(child!.id)
      expect(detail).toMatchObject({
        job: { id: child!.id },
        timeline: [{ state: 'PENDING', attempt: 0, errorCode: null }],
        printer: { remoteId: 'kitchen' },
        document: DOCUMENT,
        reprintOf: null,
        reprints: [],
        fanOut: { id: parents.jobs[0]!.id, destination: 'everywhere', state: 'PENDING' },
      })
      const parent = await queries.detail(parents.jobs[0]!.id)
      expect(parent).toMatchObject({
        job: { printerId: 'everywhere' },
        children: [{ printer: { remoteId: 'kitchen' } }, { printer: { remoteId: 'bar' } }],
      })
      expect(await queries.detail('job_none')).toBeUndefined()
      expect(await queries.lastReceipt(printers.kitchen!)).toBeUndefined()
    })

    test('a reprint: its document again under a REPRINT banner, linked both ways, once a key', async () => {
      const original = (await jobs.submit({
        projectId,
        printerId: 'kitchen',
        idempotencyKey: 'to-reprint',
        document: DOCUMENT,
        metadata: null,
      })) as { job: { id: string } }
      const reprint = await jobs.reprint(original.job.id, { projectId, idempotencyKey: 'reprint-1' })
      if (reprint.kind !== 'created') throw new Error(reprint.kind)
      expect(reprint.reprintOf).toBe(original.job.id)
      const printed = await engine.units.read((db) => db.jobs.document(reprint.job.id))
      expect(JSON.stringify(printed)).toContain('REPRINT')
      expect(await jobs.reprint(original.job.id, { projectId, idempotencyKey: 'reprint-1' })).toEqual({
        kind: 'duplicate',
        job: reprint.job,
        reprintOf: original.job.id,
      })
      expect(await engine.units.read((db) => db.jobs.reprintsOf(original.job.id))).toEqual([reprint.job.id])
      expect(await jobs.reprint('job_none', { projectId })).toEqual({ kind: 'unknown_job' })
      expect(await jobs.reprint(original.job.id, { projectId: 'prj_other' })).toEqual({ kind: 'unknown_job' })
      const [parent] = (await new JobQueries(engine.units).page({ projectId, fanOut: true }, 1)).jobs
      const children = await engine.units.read((db) => db.fanOuts.children(parent!.id))
      expect(await jobs.reprint(parent!.id, { projectId })).toEqual({
        kind: 'fan_out',
        children: children.map((child) => child.id),
      })
      expect(await jobs.get(projectId, parent!.id)).toEqual({ job: parent!, children })
      expect(await jobs.get('prj_other', original.job.id)).toBeUndefined()
    })

    test("an operator's cancel: a PENDING job at once, with its event; a fan-out once its children are", async () => {
      const made = (await submit('kitchen', 'to-cancel')) as { job: { id: string } }
      const cancelled = await jobs.cancel(ACTOR, made.job.id)
      expect(cancelled).toMatchObject({ kind: 'cancelled', job: { id: made.job.id, state: 'CANCELLED' } })
      expect(await jobs.cancel(ACTOR, made.job.id)).toMatchObject({ kind: 'finished' })
      expect(await jobs.cancel(ACTOR, 'job_none')).toEqual({ kind: 'unknown' })
      const parent = (await submit('everywhere', 'fan-out-to-cancel')) as { job: { id: string } }
      const children = await engine.units.read((db) => db.fanOuts.children(parent.job.id))
      for (const child of children) expect((await jobs.cancel(ACTOR, child.id)).kind).toBe('cancelled')
      const events = await engine.units.read((db) => db.events.after(projectId, 0, 1_000))
      const changes = events.flatMap((event) =>
        event.type === 'job.state_changed' ? [[event.job.id, event.previousState, event.state]] : [],
      )
      expect(changes).toEqual([
        [made.job.id, 'PENDING', 'CANCELLED'],
        [children[0]!.id, 'PENDING', 'CANCELLED'],
        [children[1]!.id, 'PENDING', 'CANCELLED'],
        [parent.job.id, 'PENDING', 'CANCELLED'],
      ])
      const audit = await engine.units.read((db) => db.audit.page(3))
      expect(audit.map((entry) => [entry.action, entry.target])).toEqual([
        ['jobs.cancel', children[1]!.id],
        ['jobs.cancel', children[0]!.id],
        ['jobs.cancel', made.job.id],
      ])
    })
  })
}
