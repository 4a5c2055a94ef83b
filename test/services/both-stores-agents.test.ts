// Agents on both stores: paired with a one-time code (of redemptions at once, one pairs), revoked once (never the
// built-in one), their printers' inventories written only when they change, the same on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Actor } from '../../src/services/actor.ts'
import { AgentService } from '../../src/services/agents.ts'
import type { JobService } from '../../src/services/jobs.ts'
import type { PrinterDescriptor } from '../../src/protocol/frames.ts'
import { bothEngines, ENGINE_START, type Engine } from '../support/engines.ts'

const MACHINE: Actor = { userId: null, user: null, address: null }
const ENGINES = bothEngines()
const NEW_AGENT = {
  name: 'kitchen-pi',
  version: '1.0.0',
  platform: 'linux-arm64',
  installationId: 'inst-1',
  publicKey: 'A'.repeat(43),
}
const printer = (id: string, name: string): PrinterDescriptor =>
  ({ id, name, kind: 'network', availability: 'available', enabled: true }) as unknown as PrinterDescriptor

for (const [name, open] of Object.entries(ENGINES)) {
  describe(`agents on ${name}`, () => {
    let engine: Engine
    let agents: AgentService
    let clock = Date.parse(ENGINE_START)
    const disconnected: string[] = []

    beforeAll(async () => {
      engine = await open()
      // Printing a pairing code is the jobs' work, not run here.
      const jobs = {} as JobService
      agents = new AgentService(engine.units, jobs, { disconnect: (id) => void disconnected.push(id) }, () => clock)
    })

    afterAll(async () => {
      await engine?.close()
    })

    const advance = (ms: number) => {
      engine.advance(ms)
      clock += ms
    }

    test('a code pairs one agent of five that bring it at once; used, it is consumed; malformed, invalid', async () => {
      const made = await agents.createPairingCode(MACHINE, { ttlMs: 300_000, serverUrl: 'http://hub.local:8080/' })
      if (made.kind !== 'created') throw new Error(made.kind)
      expect(made.command).toBe(`printhub agent --server http://hub.local:8080 --code ${made.code}`)
      expect(made.expiresAt).toBe(new Date(clock + 300_000).toISOString())
      const outcomes = await Promise.all([1, 2, 3, 4, 5].map(() => agents.pair(made.code, NEW_AGENT)))
      expect(outcomes.filter((o) => o.kind === 'paired')).toHaveLength(1)
      expect(outcomes.filter((o) => o.kind === 'consumed')).toHaveLength(4)
      expect(await agents.pair(made.code.toLowerCase(), NEW_AGENT)).toEqual({ kind: 'consumed' })
      expect(await agents.pair('nope', NEW_AGENT)).toEqual({ kind: 'invalid' })
      expect(await agents.pair('ABCD-2345', NEW_AGENT)).toEqual({ kind: 'invalid' })
      const [agent] = await agents.list()
      expect(agent).toMatchObject({ name: 'kitchen-pi', builtin: false, revokedAt: null, lastSeenAt: null })
      expect(await agents.createPairingCode(MACHINE, { ttlMs: 1, printOn: 'prt_none' })).toEqual({
        kind: 'unknown_printer',
      })
    })

    test('an expired code pairs nothing, and is retired by the first try', async () => {
      const made = await agents.createPairingCode(MACHINE, { ttlMs: 10_000 })
      if (made.kind !== 'created') throw new Error(made.kind)
      expect(made.command).toBeNull()
      advance(10_000)
      expect(await agents.pair(made.code, NEW_AGENT)).toEqual({ kind: 'expired' })
      expect(await agents.pair(made.code, NEW_AGENT)).toEqual({ kind: 'consumed' })
      expect(await agents.list()).toHaveLength(1)
    })

    test('revoked once, its connection ended; never the built-in agent', async () => {
      const [agent] = await agents.list()
      expect(await agents.revoke(MACHINE, agent!.id)).toMatchObject({ kind: 'revoked', agent: { id: agent!.id } })
      expect(disconnected).toEqual([agent!.id])
      expect(await agents.revoke(MACHINE, agent!.id)).toMatchObject({ kind: 'already_revoked' })
      expect(await agents.revoke(MACHINE, 'agt_none')).toEqual({ kind: 'unknown' })
      const builtin = await engine.units.write((db) => db.agents.insert(NEW_AGENT, clock, { builtin: true }))
      expect((await agents.builtin())?.id).toBe(builtin.id)
      expect(await agents.revoke(MACHINE, builtin.id)).toEqual({ kind: 'builtin' })
      expect(await engine.units.read((db) => db.agents.isRevoked(agent!.id))).toBe(true)
      expect(await engine.units.read((db) => db.agents.isRevoked(builtin.id))).toBe(false)
      expect(await engine.units.read((db) => db.agents.credential(builtin.id, builtin.keyId))).toEqual({
        publicKey: NEW_AGENT.publicKey,
        revoked: false,
        name: NEW_AGENT.name,
      })
      const actions = (await engine.units.read((db) => db.audit.page(10))).map((entry) => entry.action)
      expect(actions).toEqual(['agents.revoke', 'pairing-codes.create', 'pairing-codes.create'])
    })

    test("an agent's printers: written when they change, the same inventory again writes nothing", async () => {
      const builtin = (await agents.builtin())!
      const replace = (printers: PrinterDescriptor[]) =>
        engine.units.write((db) => db.agents.replacePrinters(builtin.id, printers))
      expect(await replace([printer('p1', 'Kitchen'), printer('p2', 'Bar')])).toBe(true)
      expect(await replace([printer('p1', 'Kitchen'), printer('p2', 'Bar')])).toBe(false)
      expect(await replace([printer('p2', 'Bar 2')])).toBe(true)
      const reported = await agents.reportedPrinters()
      expect(reported.map((p) => [p.printerId, p.name, p.enabled])).toEqual([['p2', 'Bar 2', true]])
      expect(await engine.units.read((db) => db.agents.printer(builtin.id, 'p2'))).toEqual(reported[0])
      await engine.units.write((db) => db.agents.seen(builtin.id))
      expect((await agents.get(builtin.id))?.lastSeenAt).not.toBeNull()
    })
  })
}
