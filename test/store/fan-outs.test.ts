// Fan-outs on a real store: a job posted to a destination of mode "all" through the job service is
// one child per printer, made all or none (the project's limit counts every child); a printer
// removed since is left out; the parent goes with its last child when retention deletes them.
import { THE_MACHINE } from '../../src/services/actor.ts'
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { Log } from '../../src/platform/log.ts'
import { sqliteHousekeeping } from '../../src/services/housekeeping.ts'
import { JobService } from '../../src/services/jobs.ts'
import { firstStartedStore, type TestStore } from '../support/fixtures.ts'

const DAY = 86_400_000
let clock = Date.parse('2026-01-01T12:00:00Z')
let world: TestStore
/** The limit of unfinished jobs per project, as the live setting would say it. */
let openJobLimit = 10_000
let service: JobService
let bar: string

beforeEach(async () => {
  openJobLimit = 10_000
  world = await firstStartedStore(
    () => clock,
    () => openJobLimit,
  )
  const builtin = world.store.agents.builtin()!
  bar = world.store.printers.add({
    projectId: world.projectId,
    remoteId: 'bar',
    name: null,
    connection: 'virtual',
    profile: 'generic-80mm',
    width: 80,
    agentId: builtin.id,
    agentPrinterId: 'bar',
  })!.id
  world.store.commits.write(() =>
    world.store.destinations.create(world.projectId, 'everywhere', 'all', [world.printerId, bar]),
  )
  service = new JobService({ store: world.store, listener: { jobCreated: () => {}, cancelRequested: () => {} } })
})
afterEach(() => world.close())

const rows = (table: string) => world.store.db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n
const post = (key: string) =>
  service.submit({
    projectId: world.projectId,
    printerId: 'everywhere',
    idempotencyKey: key,
    document: { width: 80, sections: [{ type: 'text', value: key }, { type: 'cut' }] },
  })

describe('fan-outs in the store', () => {
  test(
    'one child per printer, in order, each with the whole document; the key ' +
      'finds the parent, the child keys are their own',
    async () => {
      const made = await post('order-1')
      if (made.kind !== 'created') throw new Error(made.kind)
      const children = world.store.fanOuts.children(made.job.id)
      expect(children.map((child) => [child.printerId, child.state, child.idempotencyKey])).toEqual([
        [world.printerId, 'PENDING', `${made.job.id}/${world.printerId}`],
        [bar, 'PENDING', `${made.job.id}/${bar}`],
      ])
      for (const child of children)
        expect(world.store.jobs.document(child.id)).toEqual({
          width: 80,
          sections: [{ type: 'text', value: 'order-1' }, { type: 'cut' }],
        })
      expect(world.store.jobs.byIdempotencyKey(world.projectId, 'order-1')?.id).toBe(made.job.id)
      expect(world.store.fanOuts.parentOf(children[1]!.id)).toBe(made.job.id)
      expect((await post('order-1')).kind).toBe('duplicate')
      expect(rows('jobs')).toBe(2)
    },
  )

  test(
    'all or none: a project one job short of its limit gets no child at all, ' +
      "and the 429's figures are the project's",
    async () => {
      openJobLimit = 3
      expect((await post('first')).kind).toBe('created')
      const over = await post('second')
      expect(over).toEqual({ kind: 'entitlement_limit', limited: 'jobs', open: 2, limit: 3 })
      expect(rows('jobs')).toBe(2)
      expect(rows('fan_outs')).toBe(1)
      expect(world.store.jobs.byIdempotencyKey(world.projectId, 'second')).toBeUndefined()
    },
  )

  test('a printer removed since the destination was made is left out; none left is "unknown printer"', async () => {
    world.store.commits.write(() => world.store.printers.remove(bar))
    const made = await post('order-2')
    if (made.kind !== 'created') throw new Error(made.kind)
    expect(world.store.fanOuts.children(made.job.id).map((child) => child.printerId)).toEqual([world.printerId])
    world.store.commits.write(() => world.store.printers.remove(world.printerId))
    expect(await post('order-3')).toEqual({ kind: 'unknown_printer', printerId: 'everywhere' })
  })

  test('retention deletes the finished children; the parent goes with the last of them', async () => {
    const made = await post('order-4')
    if (made.kind !== 'created') throw new Error(made.kind)
    for (const child of world.store.fanOuts.children(made.job.id))
      expect((await service.cancel(THE_MACHINE, child.id)).kind).toBe('cancelled')
    await world.store.commits.durable()
    expect(world.store.fanOuts.get(made.job.id)?.state).toBe('CANCELLED')
    clock += 31 * DAY
    await sqliteHousekeeping(world.store, {
      retentionDays: () => 30,
      historyBytesPerProject: () => Number.MAX_SAFE_INTEGER,
      diskLow: () => false,
      now: () => clock,
      log: new Log({ format: 'text', level: 'warn', journal: false }, () => {}).for('retention'),
    }).pass()
    expect(rows('jobs')).toBe(0)
    expect(rows('fan_outs')).toBe(0)
    expect(world.store.fanOuts.get(made.job.id)).toBeUndefined()
  })
})
