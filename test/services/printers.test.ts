// Giving a project a printer: one rule whoever asks (the dashboard's admin API, the CLI). Each
// outcome of the service, on a real store; and the same refusal through the CLI and the admin API.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import type { PrinterDescriptor } from '../../src/protocol/frames.ts'
import { initialize } from '../../src/services/init.ts'
import { THE_MACHINE } from '../../src/services/actor.ts'
import { HubServices } from '../../src/services/hub-services.ts'
import { Store } from '../../src/store/store.ts'
import { cli } from '../support/cli.ts'
import { CUPS_QUEUE as cupsQueue, virtualPrinter } from '../support/fake-agent.ts'
import { tempDir } from '../support/hub.ts'
import { confinementOf } from '../../src/transports/confine.ts'

let dir: string
let store: Store
let projectId: string

function pairedAgent(printers: PrinterDescriptor[]): string {
  const agent = store.agents.insert(
    { name: 'bar', version: '1', platform: 'linux', installationId: 'installation_bar', publicKey: 'A'.repeat(43) },
    Date.now(),
  )
  store.agents.replacePrinters(agent.id, printers)
  return agent.id
}

beforeEach(async () => {
  dir = tempDir()
  store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: 10_000 })
  projectId = (await initialize(store, dir)).projectId
})
const place = () => confinementOf(dir, [8080])
const printers = () => new HubServices(store).printers

afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('a paired agent’s printer', () => {
  test(
    "a stock agent's system queue is assigned with its connection as " + 'reported, its paper and name by default',
    async () => {
      const agentId = pairedAgent([cupsQueue])
      const outcome = await printers().assign(THE_MACHINE, { projectId, agentId, agentPrinterId: 'front-desk' })
      expect(outcome).toMatchObject({
        kind: 'added',
        printer: {
          remoteId: 'front-desk',
          connection: 'EPSON_TM_T20',
          width: 58,
          profile: 'generic-58mm',
          name: 'Front desk',
          agentId,
        },
      })
      // And it can be renamed later: its connection is the agent's, not checked as a hub URI.
      const printer = (outcome as { printer: { id: string } }).printer
      expect(await printers().change(THE_MACHINE, printer.id, { name: 'Desk' }, place())).toMatchObject({
        kind: 'changed',
        printer: { name: 'Desk', connection: 'EPSON_TM_T20' },
      })
      expect(await printers().change(THE_MACHINE, printer.id, { connection: 'tcp://10.0.0.9' }, place())).toEqual({
        kind: 'connection_set_by_agent',
      })
    },
  )

  test('every refusal is an outcome, and nothing is added', async () => {
    const agentId = pairedAgent([virtualPrinter('bar-printer')])
    const before = store.printers.list(projectId).length
    expect(
      await printers().assign(THE_MACHINE, { projectId: 'prj_none', agentId, agentPrinterId: 'bar-printer' }),
    ).toEqual({
      kind: 'unknown_project',
    })
    expect(
      await printers().assign(THE_MACHINE, { projectId, agentId: 'agt_none', agentPrinterId: 'bar-printer' }),
    ).toEqual({
      kind: 'unknown_agent',
    })
    expect(await printers().assign(THE_MACHINE, { projectId, agentId, agentPrinterId: 'not-there' })).toEqual({
      kind: 'not_reported',
    })
    expect(
      await printers().assign(THE_MACHINE, { projectId, agentId, agentPrinterId: 'bar-printer', id: 'has space' }),
    ).toMatchObject({ kind: 'invalid', problem: { field: 'id' } })
    expect(
      await printers().assign(THE_MACHINE, {
        projectId,
        agentId,
        agentPrinterId: 'bar-printer',
        profile: 'no-such-model',
      }),
    ).toMatchObject({ kind: 'invalid', problem: { field: 'profile' } })
    expect(
      await printers().assign(THE_MACHINE, { projectId, agentId, agentPrinterId: 'bar-printer', id: 'demo' }),
    ).toEqual({
      kind: 'taken',
      id: 'demo',
    })
    store.agents.revoke(agentId)
    expect(await printers().assign(THE_MACHINE, { projectId, agentId, agentPrinterId: 'bar-printer' })).toEqual({
      kind: 'unknown_agent',
    })
    expect(store.printers.list(projectId)).toHaveLength(before)
  })
})

describe("a printer the hub's built-in agent drives", () => {
  test('added with the generic profile of its width; its settings are checked', async () => {
    expect(
      await printers().add(
        THE_MACHINE,
        projectId,
        { id: 'kitchen', connection: 'tcp://192.168.1.50', width: 58 },
        place(),
      ),
    ).toMatchObject({
      kind: 'added',
      printer: {
        remoteId: 'kitchen',
        connection: 'tcp://192.168.1.50',
        profile: 'generic-58mm',
        width: 58,
        agentId: store.agents.builtin()!.id,
      },
    })
    expect(await printers().add(THE_MACHINE, projectId, { id: 'bar', connection: 'lpt1' }, place())).toMatchObject({
      kind: 'invalid',
      problem: { field: 'connection' },
    })
    expect(await printers().add(THE_MACHINE, projectId, { id: 'kitchen', connection: 'virtual' }, place())).toEqual({
      kind: 'taken',
      id: 'kitchen',
    })
    expect(await printers().add(THE_MACHINE, 'prj_none', { id: 'x', connection: 'virtual' }, place())).toEqual({
      kind: 'unknown_project',
    })
  })
})

test('the CLI refuses a revoked agent’s printer as the service says, and gives a stock agent’s queue', async () => {
  const agentId = pairedAgent([cupsQueue])
  store.close()
  const assign = (id: string) =>
    cli([
      'printers',
      'assign',
      '--project',
      projectId,
      '--agent',
      agentId,
      '--printer',
      'front-desk',
      '--id',
      id,
      '--data',
      dir,
      '--json',
    ])
  const given = await assign('desk')
  expect(given.code).toBe(0)
  expect(JSON.parse(given.stdout)).toMatchObject({ remoteId: 'desk', connection: 'EPSON_TM_T20' })
  store = Store.open({ dataDir: dir, create: false, maxOpenJobsPerProject: 10_000 })
  store.agents.revoke(agentId)
  store.close()
  const refused = await assign('desk-2')
  expect(refused.code).toBe(1)
  expect(refused.stderr).toContain(`there is no paired agent ${agentId}`)
  store = Store.open({ dataDir: dir, create: false, maxOpenJobsPerProject: 10_000 })
})
