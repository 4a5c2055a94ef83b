// The data directory's lock in one process and against other processes: who holds it is named,
// release lets the next one in, a hub that fails to start gives it back, and a holder that wrote
// no name (or a file that cannot be opened) is still explained.
import { afterAll, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { resolveConfig } from '../../src/hub/config.ts'
import { startHub } from '../../src/hub/start.ts'
import { DataDirInUseError, DataDirLockError, LOCK_FILE, lockDataDir } from '../../src/platform/data-dir-lock.ts'
import { DatabaseTooNewError } from '../../src/sqlite/database.ts'
import { Store } from '../../src/store/store.ts'
import { writtenByNewerPrinthub } from '../support/fixtures.ts'
import { tempDir } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

const dirs: string[] = []
const fresh = () => {
  const dir = tempDir()
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const config = (dataDir: string, port = '0') => resolveConfig({ host: '127.0.0.1', port, data: dataDir }, {})

describe('the data directory lock', () => {
  test('one holder at a time, named in the refusal; release lets the next in; the directory is created', () => {
    const dataDir = join(fresh(), 'new', 'data')
    const lock = lockDataDir(dataDir, 'agent')
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'))).toEqual({ pid: process.pid, role: 'agent' })
    let refusal: unknown
    try {
      lockDataDir(dataDir, 'serve')
    } catch (error) {
      refusal = error
    }
    expect(refusal).toBeInstanceOf(DataDirInUseError)
    expect((refusal as DataDirInUseError).holder).toEqual({ pid: process.pid, role: 'agent' })
    expect((refusal as Error).message).toBe(
      `the data directory ${dataDir} is in use by printhub agent (PID ` +
        `${process.pid}); stop it first, or use another --data`,
    )
    lock.release()
    lock.release()
    // Released: the file names nobody, and the next one takes it.
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe('')
    const next = lockDataDir(dataDir, 'serve')
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'))).toEqual({ pid: process.pid, role: 'serve' })
    next.release()
  })

  test('a holder that wrote no name (another program with flock) is "another printhub process"', async () => {
    const dataDir = fresh()
    const file = join(dataDir, LOCK_FILE)
    const ready = join(dataDir, 'ready')
    // flock(1) takes the lock and becomes its command (no fork), which says when it has it.
    const holder = Bun.spawn(['flock', '--nonblock', '--no-fork', file, 'sh', '-c', `touch ${ready}; exec sleep 30`], {
      stdout: 'ignore',
      stderr: 'ignore',
    })
    try {
      await waitFor(() => existsSync(ready), 5_000)
      expect(() => lockDataDir(dataDir, 'serve')).toThrow(
        `the data directory ${dataDir} is in use by another printhub process; stop it first, or use another --data`,
      )
    } finally {
      holder.kill('SIGKILL')
      await holder.exited
    }
    // The holder killed with -9: the kernel let go of the lock.
    await waitFor(() => {
      try {
        lockDataDir(dataDir, 'serve').release()
        return true
      } catch {
        return false
      }
    }, 5_000)
  })

  test('a data directory that cannot be written is explained', () => {
    if (process.getuid?.() === 0) {
      // root writes anywhere: a file where the directory should be makes the same failure.
      const parent = fresh()
      writeFileSync(join(parent, 'file'), '')
      expect(() => lockDataDir(join(parent, 'file'), 'serve')).toThrow(DataDirLockError)
      expect(() => lockDataDir(join(parent, 'file'), 'serve')).toThrow(
        `cannot use the data directory ${join(parent, 'file')}`,
      )
      return
    }
    const dataDir = fresh()
    chmodSync(dataDir, 0o500)
    expect(() => lockDataDir(dataDir, 'serve')).toThrow(
      `${LOCK_FILE} cannot be opened (EACCES); is the directory writable by this user?`,
    )
    chmodSync(dataDir, 0o700)
  })

  test('startHub holds it until stop(), and gives it back when it cannot start', async () => {
    const dataDir = fresh()
    const hub = await startHub(config(dataDir), { log: () => {}, events: () => {} })
    try {
      await expect(startHub(config(dataDir), { log: () => {}, events: () => {} })).rejects.toThrow(
        `in use by printhub serve (PID ${process.pid})`,
      )
      // A start that fails after taking the lock (its database is a newer printhub's) lets it go.
      const other = fresh()
      const store = Store.open({ dataDir: other, create: true, maxOpenJobsPerProject: 100 })
      store.close()
      writtenByNewerPrinthub(other, 999)
      await expect(startHub(config(other), { log: () => {}, events: () => {} })).rejects.toThrow(DatabaseTooNewError)
      lockDataDir(other, 'serve').release()
    } finally {
      await hub.stop()
    }
    const again = await startHub(config(dataDir), { log: () => {}, events: () => {} })
    await again.stop()
  })
})
