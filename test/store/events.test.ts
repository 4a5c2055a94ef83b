// The project's event log (store/events.ts): one event per change in the change's transaction,
// pruned by age and by count from the oldest, each project remembering the newest ID it lost.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { firstStartedStore, jobInState, type TestStore } from '../support/fixtures.ts'

let world: TestStore
let clock = Date.parse('2026-11-01T08:00:00.000Z')
beforeEach(async () => {
  world = await firstStartedStore(() => clock)
})
afterEach(() => world.close())

const DAY = 86_400_000

describe('the event log', () => {
  test('a job through its life leaves created, then one event per state, in order, with the job as it was', () => {
    const job = jobInState(world.store, world, 'COMPLETED')
    world.store.commits.commit()
    const events = world.store.events.after(world.projectId, 0, 100).filter((e) => 'job' in e && e.job.id === job.id)
    expect(events.map((e) => (e.type === 'job.state_changed' ? `${e.previousState}>${e.state}` : e.type))).toEqual([
      'job.created',
      'PENDING>DISPATCHING',
      'DISPATCHING>DELIVERED',
      'DELIVERED>PRINTING',
      'PRINTING>COMPLETED',
    ])
    for (const event of events) if (event.type === 'job.state_changed') expect(event.job.state).toBe(event.state)
    // The frames say the same as the events, byte for byte.
    const frames = world.store.events.frames(world.projectId, 0, 100)
    for (const event of world.store.events.after(world.projectId, 0, 100))
      expect(frames.find((f) => f.id === event.id)!.frame).toBe(
        `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`,
      )
  })

  test("listeners hear of a project's new events once a commit, after it, and again for the next commit", () => {
    const heard: string[] = []
    const stop = world.store.events.listen((projectId) => heard.push(projectId))
    try {
      jobInState(world.store, world, 'COMPLETED')
      jobInState(world.store, world, 'PENDING')
      expect(heard).toEqual([])
      world.store.commits.commit()
      expect(heard).toEqual([world.projectId])
      jobInState(world.store, world, 'PENDING')
      world.store.commits.commit()
      expect(heard).toEqual([world.projectId, world.projectId])
      // An event written outside a transaction is told of on its own, at once.
      const job = jobInState(world.store, world, 'PENDING')
      world.store.commits.commit()
      expect(world.store.commits.transaction).toBeUndefined()
      world.store.events.append(world.projectId, 'job.created', { job })
      expect(heard).toHaveLength(4)
    } finally {
      stop()
    }
  })

  test('a change rolled back leaves no event', () => {
    const before = world.store.events.newest(world.projectId)
    expect(() =>
      world.store.commits.write(() => {
        world.store.jobs.create({
          projectId: world.projectId,
          printerId: world.printerId,
          idempotencyKey: 'undone',
          document: { width: 80, sections: [{ type: 'cut' }] },
          metadata: null,
          expiresInMs: DAY,
          maxAttempts: 3,
        })
        throw new Error('undone')
      }),
    ).toThrow('undone')
    world.store.commits.commit()
    expect(world.store.events.newest(world.projectId)).toBe(before)
  })

  test(
    'pruned by age from the oldest, and by count beyond the bound; the ' + 'project remembers the newest ID it lost',
    () => {
      for (let i = 0; i < 4; i++) jobInState(world.store, world, 'PENDING')
      world.store.commits.commit()
      const old = world.store.events.after(world.projectId, 0, 100)
      clock += 8 * DAY
      for (let i = 0; i < 6; i++) jobInState(world.store, world, 'PENDING')
      world.store.commits.commit()
      // Older than 7 days: the first four go, in steps of at most 3.
      expect(world.store.events.prune(clock - 7 * DAY, 1_000, 3)).toBe(3)
      expect(world.store.events.prune(clock - 7 * DAY, 1_000, 3)).toBe(old.length - 3)
      expect(world.store.events.prune(clock - 7 * DAY, 1_000, 3)).toBe(0)
      world.store.commits.commit()
      expect(world.store.events.prunedThrough(world.projectId)).toBe(old.at(-1)!.id)
      const kept = world.store.events.after(world.projectId, 0, 100)
      expect(kept[0]!.id).toBe(old.at(-1)!.id + 1)
      // At most 4 in all: the oldest beyond go, whatever their age.
      while (world.store.events.prune(0, 4, 2) > 0);
      world.store.commits.commit()
      const left = world.store.events.after(world.projectId, 0, 100)
      expect(left.map((e) => e.id)).toEqual(kept.slice(-4).map((e) => e.id))
      expect(world.store.events.prunedThrough(world.projectId)).toBe(kept.at(-5)!.id)
    },
  )
})
