// Printers looked up within one group transaction are kept until it ends: a job's submission and
// dispatch look up the same printer several times in one turn. Kept only while nothing can change
// them unseen: another process cannot commit while the transaction holds the write lock; this
// process's own writes to a printer, and changes undone, end the keeping. Shown on a real
// database, with a second connection standing in for `printhub printers edit`.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { DATABASE_FILE } from '../../src/store/database.ts'
import { firstStartedStore, type TestStore } from '../support/fixtures.ts'

let world: TestStore
beforeEach(async () => {
  world = await firstStartedStore()
})
afterEach(() => world.close())

/** How many SELECTs on printers the store ran while `run` ran. */
function printerReads(run: () => void): number {
  const db = world.store.db
  const original = db.query.bind(db)
  let reads = 0
  db.query = ((sql: string) => {
    if (/^SELECT \* FROM printers/.test(sql)) reads++
    return original(sql)
  }) as typeof db.query
  try {
    run()
  } finally {
    db.query = original
  }
  return reads
}

/** Opens a group transaction (any change does) and runs `run` inside it. */
function inTransaction<T>(run: () => T): T {
  return world.store.commits.write(() => {
    world.store.settings.set('touch', String(Math.random()))
    return run()
  })
}

test('within one transaction a printer is read once, by record ID and by name alike', () => {
  const { printers } = world.store
  const reads = printerReads(() =>
    inTransaction(() => {
      const first = printers.get(world.printerId)
      expect(printers.get(world.printerId)).toBe(first)
      expect(printers.resolve(world.projectId, 'demo')).toEqual(first)
      expect(printers.resolve(world.projectId, 'demo')).toBe(printers.resolve(world.projectId, 'demo'))
      expect(Object.isFrozen(first)).toBe(true)
      expect(printers.resolve(world.projectId, 'nobody')).toBeUndefined()
      expect(printers.resolve(world.projectId, 'nobody')).toBeUndefined()
    }),
  )
  expect(reads).toBe(3)
})

test(
  'outside a transaction every look-up reads, and the next transaction ' + 'reads afresh what another process changed',
  () => {
    const { printers } = world.store
    expect(printerReads(() => [printers.get(world.printerId), printers.get(world.printerId)])).toBe(2)
    inTransaction(() => printers.get(world.printerId))
    world.store.commits.commit()
    const other = new Database(join(world.dir, DATABASE_FILE))
    other.run('PRAGMA busy_timeout = 5000')
    other.run("UPDATE printers SET connection = 'tcp://192.0.2.7:9100' WHERE id = ?", [world.printerId])
    other.close()
    expect(inTransaction(() => printers.get(world.printerId)?.connection)).toBe('tcp://192.0.2.7:9100')
  },
)

test("this process's own change to a printer is seen at once, and nothing is kept after it in that transaction", () => {
  const { printers } = world.store
  inTransaction(() => {
    const before = printers.get(world.printerId)!
    printers.update(world.printerId, {
      name: 'Kitchen',
      connection: before.connection,
      profile: before.profile,
      width: 58,
    })
    expect(printers.get(world.printerId)?.width).toBe(58)
    expect(printerReads(() => [printers.get(world.printerId), printers.get(world.printerId)])).toBe(2)
    expect(printers.remove(world.printerId)).toBe(true)
    expect(printers.resolve(world.projectId, 'demo')).toBeUndefined()
  })
})

test('a printer added by a change that was undone is not found afterwards', () => {
  const { printers } = world.store
  const demo = printers.get(world.printerId)!
  inTransaction(() => printers.get(world.printerId))
  expect(() =>
    world.store.commits.write(() => {
      printers.add({
        projectId: world.projectId,
        remoteId: 'ghost',
        name: null,
        connection: demo.connection,
        profile: demo.profile,
        width: 80,
        agentId: demo.agentId,
      })
      expect(printers.resolve(world.projectId, 'ghost')?.remoteId).toBe('ghost')
      throw new Error('undone')
    }),
  ).toThrow('undone')
  expect(inTransaction(() => printers.resolve(world.projectId, 'ghost'))).toBeUndefined()
})
