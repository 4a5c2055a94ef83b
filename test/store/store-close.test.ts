// Closing the store closes its connection there and then. bun:sqlite's close() without `true` leaves a connection with
// prepared statements open until they are collected, and that connection, closing later as the file's last, writes
// its view of the write-ahead log into the database file: after a restore or beside another opener, at a moment no
// one chose. The power-cut test found it (a seeding connection, closed so, wrote over a running hub's pages).
import { afterEach, expect, test } from 'bun:test'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { initialize } from '../../src/services/init.ts'
import { DATABASE_FILE } from '../../src/store/database.ts'
import { Store } from '../../src/store/store.ts'
import { tempDir } from '../support/hub.ts'

let dir: string | undefined
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('closing the store checkpoints and removes the write-ahead log at once: no connection left behind', async () => {
  dir = tempDir()
  const store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: 100 })
  // Setting up prepares statements and writes through the group commit.
  const { projectId } = await initialize(store, dir)
  expect(store.printers.resolve(projectId, 'demo')).toBeDefined()
  expect(existsSync(join(dir, `${DATABASE_FILE}-wal`))).toBe(true)
  store.close()
  // The last connection, really closed, checkpoints the log into the file and removes it.
  expect(existsSync(join(dir, `${DATABASE_FILE}-wal`))).toBe(false)
  expect(existsSync(join(dir, `${DATABASE_FILE}-shm`))).toBe(false)
})
