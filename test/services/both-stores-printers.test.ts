// Printers on both stores: a project's printers added (driven by the hub, adopted when they poll, or a paired agent's),
// changed and removed with the same rules and outcomes on SQLite and PostgreSQL, and their status history read back.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Actor } from '../../src/services/actor.ts'
import { DestinationService } from '../../src/services/destinations.ts'
import type { JobService } from '../../src/services/jobs.ts'
import { PrinterService } from '../../src/services/printers.ts'
import { ProjectService } from '../../src/services/projects.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { CUPS_QUEUE, virtualPrinter } from '../support/fake-agent.ts'
import { bothEngines, type Engine } from '../support/engines.ts'
import { tempDir } from '../support/hub.ts'

const ACTOR: Actor = { userId: 'usr_1', user: 'kim', address: '192.168.1.20' }
const ENGINES = bothEngines()
const AGENT = { name: 'bar', version: '1', platform: 'linux', installationId: 'inst', publicKey: 'A'.repeat(43) }

for (const [name, open] of Object.entries(ENGINES)) {
  describe(`printers on ${name}`, () => {
    let engine: Engine
    let printers: PrinterService
    let projectId: string
    let builtinId: string
    const confinement = confinementOf(tempDir(), [8080])

    beforeAll(async () => {
      engine = await open()
      // Test pages are the jobs' work, not run here.
      printers = new PrinterService(engine.units, {} as JobService)
      const made = await new ProjectService(engine.units).create(ACTOR, 'Bar Luna')
      if (made.kind !== 'created') throw new Error(made.kind)
      projectId = made.project.id
    })

    afterAll(async () => {
      await engine?.close()
    })

    test('without a built-in agent, none of the hub’s own printers; with it, added with its profile', async () => {
      const kitchen = { id: 'kitchen', connection: 'tcp://192.168.1.50', width: 58 }
      expect(await printers.add(ACTOR, projectId, kitchen, confinement)).toEqual({ kind: 'no_builtin_agent' })
      builtinId = (await engine.units.write((db) => db.agents.insert(AGENT, 0, { builtin: true }))).id
      expect(await printers.add(ACTOR, projectId, kitchen, confinement)).toMatchObject({
        kind: 'added',
        printer: { remoteId: 'kitchen', profile: 'generic-58mm', width: 58, agentId: builtinId, name: null },
      })
      expect(await printers.add(ACTOR, projectId, { id: 'kitchen', connection: 'virtual' }, confinement)).toEqual({
        kind: 'taken',
        id: 'kitchen',
      })
      expect(await printers.add(ACTOR, projectId, { id: 'bar', connection: 'lpt1' }, confinement)).toMatchObject({
        kind: 'invalid',
        problem: { field: 'connection' },
      })
      expect(await printers.add(ACTOR, 'prj_none', { id: 'x', connection: 'virtual' }, confinement)).toEqual({
        kind: 'unknown_project',
      })
    })

    test('printers and destinations share one namespace per project', async () => {
      const kitchen = (await printers.resolve(projectId, 'kitchen'))!
      const front = await new DestinationService(engine.units).create(ACTOR, projectId, 'front', {
        mode: 'failover',
        printers: [kitchen.remoteId],
      })
      expect(front.kind).toBe('saved')
      expect(await printers.add(ACTOR, projectId, { id: 'front', connection: 'virtual' }, confinement)).toEqual({
        kind: 'taken',
        id: 'front',
      })
    })

    test('a printer that polls is adopted once by its MAC address', async () => {
      const adopted = await printers.adopt(ACTOR, projectId, { printer: '00:11:62:aa:bb:cc', id: 'bar' }, confinement)
      expect(adopted).toMatchObject({ kind: 'added', printer: { remoteId: 'bar' } })
      expect(
        await printers.adopt(ACTOR, projectId, { printer: '00:11:62:AA:BB:CC', id: 'bar-2' }, confinement),
      ).toMatchObject({ kind: 'mac_taken', printer: { remoteId: 'bar' } })
    })

    test("a paired agent's printer: assigned with what it reports; its connection stays the agent's", async () => {
      const agentId = (await engine.units.write((db) => db.agents.insert(AGENT, 0))).id
      await engine.units.write((db) => db.agents.replacePrinters(agentId, [CUPS_QUEUE, virtualPrinter('spare')]))
      expect(await printers.assign(ACTOR, { projectId, agentId, agentPrinterId: 'not-there' })).toEqual({
        kind: 'not_reported',
      })
      expect(await printers.assign(ACTOR, { projectId, agentId: 'agt_none', agentPrinterId: 'spare' })).toEqual({
        kind: 'unknown_agent',
      })
      const outcome = await printers.assign(ACTOR, { projectId, agentId, agentPrinterId: 'front-desk' })
      if (outcome.kind !== 'added') throw new Error(outcome.kind)
      expect(outcome.printer).toMatchObject({ connection: 'EPSON_TM_T20', width: 58, name: 'Front desk', agentId })
      expect(await printers.change(ACTOR, outcome.printer.id, { name: 'Desk' }, confinement)).toMatchObject({
        kind: 'changed',
        printer: { name: 'Desk', connection: 'EPSON_TM_T20' },
      })
      expect(await printers.change(ACTOR, outcome.printer.id, { connection: 'tcp://10.0.0.9' }, confinement)).toEqual({
        kind: 'connection_set_by_agent',
      })
      expect(await printers.change(ACTOR, 'prn_none', { name: 'x' }, confinement)).toEqual({ kind: 'unknown_printer' })
    })

    test('removed: gone from the list, kept for its jobs, removed once; each change in the audit log', async () => {
      const kitchen = (await printers.resolve(projectId, 'kitchen'))!
      expect(await printers.remove(ACTOR, kitchen.id)).toBe(true)
      expect(await printers.remove(ACTOR, kitchen.id)).toBe(false)
      expect(await printers.resolve(projectId, 'kitchen')).toBeUndefined()
      expect((await printers.get(kitchen.id))?.remoteId).toBe('kitchen')
      expect((await printers.list(projectId)).map((p) => p.remoteId)).toEqual(['bar', 'front-desk'])
      const actions = (await engine.units.read((db) => db.audit.page(20))).map((entry) => entry.action)
      expect(actions).toEqual([
        'printers.remove',
        'printers.change',
        'printers.assign',
        'printers.adopt',
        'destinations.create',
        'printers.add',
        'projects.create',
      ])
      expect(await printers.history(kitchen, 10)).toEqual([])
      const record = (state: 'online' | 'paper_out') =>
        engine.units.write((db) => db.printerStates.record(kitchen.agentId, kitchen.agentPrinterId, state))
      expect(await record('online')).toEqual({ from: undefined })
      expect(await record('online')).toBe(false)
      engine.advance(1_000)
      expect(await record('paper_out')).toEqual({ from: 'online' })
      expect(await record('online')).toEqual({ from: 'paper_out' })
      expect(await printers.history(kitchen, 2)).toEqual([
        { at: '2026-12-07T10:00:01.000Z', state: 'online' },
        { at: '2026-12-07T10:00:01.000Z', state: 'paper_out' },
      ])
      expect(await engine.units.read((db) => db.printerStates.since(kitchen.agentId, kitchen.agentPrinterId))).toBe(
        '2026-12-07T10:00:01.000Z',
      )
    })
  })
}
