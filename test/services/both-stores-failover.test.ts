// Failover destinations on both stores, with who is connected as the test says: a job posted to the destination goes
// to its first printer that can print; jobs waiting at a printer that lost its connection move to the next printer
// once it has been unable to print for the threshold, counted from when its connection was lost (a cluster's node
// that died: its leases ran out then), each with its ticket's note, a line in its timeline and a `job.moved` event.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { PrintDocument } from '../../src/protocol/document.ts'
import type { Job } from '../../src/protocol/job.ts'
import type { Actor } from '../../src/services/actor.ts'
import { DestinationService } from '../../src/services/destinations.ts'
import { Failover } from '../../src/services/failover.ts'
import { JobService } from '../../src/services/jobs.ts'
import type { Liveness } from '../../src/services/printer-states.ts'
import { PrinterService } from '../../src/services/printers.ts'
import { ProjectService } from '../../src/services/projects.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { bothEngines, ENGINE_START, type Engine } from '../support/engines.ts'
import { tempDir } from '../support/hub.ts'

const ACTOR: Actor = { userId: 'usr_1', user: 'kim', address: '192.168.1.20' }
const ENGINES = bothEngines()
const AGENT = { name: 'hub', version: '1', platform: 'linux', installationId: 'inst', publicKey: 'A'.repeat(43) }
const DOCUMENT: PrintDocument = { width: 80, sections: [{ type: 'text', value: 'Soupe à l’oignon' }, { type: 'cut' }] }
const AFTER_MS = 30_000

for (const [name, open] of Object.entries(ENGINES)) {
  describe(`failover on ${name}`, () => {
    let engine: Engine
    let clock = Date.parse(ENGINE_START)
    let projectId: string
    const printers: Record<string, string> = {}
    /** Printers (record IDs) whose driver is not connected, and since when (ms). */
    const lost = new Map<string, number>()
    const live: Liveness = {
      connected: (_agentId, record) => record !== undefined && !lost.has(record.id),
      agentOnline: () => true,
      offlineSince: (_agentId, record) => (record ? lost.get(record.id) : undefined),
      learned: () => 'online',
      recorded: false,
    }
    const arrived: string[] = []
    let jobs: JobService
    let failover: Failover
    /** The first job, left waiting at the bar. */
    let first: Job

    beforeAll(async () => {
      engine = await open()
      jobs = new JobService({
        units: engine.units,
        listener: { jobCreated() {}, cancelRequested() {} },
        liveness: () => live,
      })
      failover = new Failover(
        engine.units,
        async () => live,
        (printerId) => void arrived.push(printerId),
        {
          afterMs: AFTER_MS,
          now: () => clock,
        },
      )
      const made = await new ProjectService(engine.units).create(ACTOR, 'Bar Luna')
      if (made.kind !== 'created') throw new Error(made.kind)
      projectId = made.project.id
      await engine.units.write((db) => db.agents.insert(AGENT, 0, { builtin: true }))
      const service = new PrinterService(engine.units, jobs)
      for (const id of ['bar', 'kitchen']) {
        const added = await service.add(ACTOR, projectId, { id, connection: 'virtual' }, confinementOf(tempDir(), []))
        if (added.kind !== 'added') throw new Error(added.kind)
        printers[id] = added.printer.id
      }
      await new DestinationService(engine.units).create(ACTOR, projectId, 'front', {
        mode: 'failover',
        printers: ['bar', 'kitchen'],
      })
    })

    afterAll(async () => {
      await engine?.close()
    })

    const advance = (ms: number) => {
      clock += ms
      engine.advance(ms)
    }
    const submit = async (idempotencyKey: string) => {
      const outcome = await jobs.submit({ projectId, printerId: 'front', idempotencyKey, document: DOCUMENT })
      if (outcome.kind !== 'created') throw new Error(outcome.kind)
      return outcome.job
    }

    test('a job goes to the first printer that can print: the bar while it can, then the kitchen', async () => {
      first = await submit('order-1')
      expect(first.printerId).toBe(printers.bar!)
      lost.set(printers.bar!, clock)
      expect((await submit('order-2')).printerId).toBe(printers.kitchen!)
      lost.clear()
    })

    test('what waits at a printer that lost its connection moves on once it has been away the threshold', async () => {
      const waiting = [first, await submit('order-3'), await submit('order-4')]
      expect(waiting.map((job) => job.printerId)).toEqual([printers.bar!, printers.bar!, printers.bar!])
      // Lost a while ago, whatever the printer's last recorded state said: counted from then.
      lost.set(printers.bar!, clock)
      advance(AFTER_MS - 1_000)
      await failover.watch()
      const still = await engine.units.read((db) => db.jobs.get(waiting[0]!.id))
      expect(still!.printerId).toBe(printers.bar!)
      expect(arrived).toEqual([])
      advance(2_000)
      await failover.watch()
      expect(arrived).toEqual([printers.kitchen!])
      const note = 'Printed at kitchen: bar is offline'
      for (const job of waiting) {
        const moved = await engine.units.read((db) => db.jobs.get(job.id))
        expect(moved).toMatchObject({ printerId: printers.kitchen!, state: 'PENDING' })
        const timeline = await engine.units.read((db) => db.jobs.timeline(job.id))
        expect(timeline.at(-1)).toMatchObject({ state: 'PENDING', errorCode: 'job.moved', errorMessage: note })
      }
      const events = await engine.units.read((db) => db.events.after(projectId, 0, 100))
      const moves = events.flatMap((event) => (event.type === 'job.moved' ? [event] : []))
      expect(moves.map((event) => event.job.id)).toEqual(waiting.map((job) => job.id))
      expect(moves[0]).toMatchObject({ previousPrinterId: printers.bar!, note, job: { printerId: printers.kitchen! } })
      // Nothing left to move: a second look moves nothing and tells no one.
      await failover.watch()
      expect(arrived).toEqual([printers.kitchen!])
    })
  })
}
