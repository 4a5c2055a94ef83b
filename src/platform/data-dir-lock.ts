// One process per data directory: `printhub serve` and `printhub agent` hold an exclusive
// flock(2) on DATA_DIR/printhub.lock for their whole life, so a second one refuses to start
// instead of sharing the database. The kernel drops the lock when the process ends, even by
// kill -9, so it is never stale. The file says who holds it (PID and role), for the refusal.
// libc is loaded as transports/libc.ts does, on first use.
import { dlopen, FFIType, toArrayBuffer } from 'bun:ffi'
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export const LOCK_FILE = 'printhub.lock'

/** What holds a data directory: the hub, a remote agent, or a restore replacing it. */
export type DataDirRole = 'serve' | 'agent' | 'restore'
const ROLES: readonly string[] = ['serve', 'agent', 'restore'] satisfies DataDirRole[]

export interface DataDirHolder {
  pid: number
  role: DataDirRole
}

/** flock(2) operations and the errno of a lock held elsewhere (Linux). */
const LOCK_EX = 2
const LOCK_NB = 4
const LOCK_UN = 8
const EWOULDBLOCK = 11
/** A holder writes its name just after it locks; a refusal waits this long to read it. */
const HOLDER_WAIT_MS = 1_000

/** The data directory could not be locked. */
export class DataDirLockError extends Error {}

/** Another printhub process holds the data directory. */
export class DataDirInUseError extends DataDirLockError {
  constructor(
    readonly dataDir: string,
    readonly holder: DataDirHolder | undefined,
  ) {
    const who = holder ? `printhub ${holder.role} (PID ${holder.pid})` : 'another printhub process'
    super(`the data directory ${dataDir} is in use by ${who}; stop it first, or use another --data`)
  }
}

let library: ReturnType<typeof load> | undefined

function load() {
  return dlopen('libc.so.6', {
    flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  }).symbols
}

const libc = () => (library ??= load())

function errno(): number {
  const location = libc().__errno_location()
  return location ? new Int32Array(toArrayBuffer(location, 0, 4))[0]! : 0
}

/** Takes the lock without waiting: true when taken, false when another open file holds it. */
function tryLock(fd: number, file: string): boolean {
  if (libc().flock(fd, LOCK_EX | LOCK_NB) === 0) return true
  const code = errno()
  if (code === EWOULDBLOCK) return false
  throw new DataDirLockError(`cannot lock ${file} (flock failed, errno ${code})`)
}

/** Who the lock file says holds it; undefined while it is being written, or when it is not ours. */
function readHolder(file: string): DataDirHolder | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<DataDirHolder>
    if (Number.isSafeInteger(value.pid) && ROLES.includes(value.role!)) return { pid: value.pid!, role: value.role! }
  } catch {
    // Empty (just locked, not yet written) or not JSON.
  }
  return undefined
}

export interface DataDirLock {
  readonly file: string
  /** Lets the next process have the data directory; only the process that took it calls this. */
  release(): void
}

/**
 * Takes the data directory for this process (creating the directory when it is missing), or
 * throws DataDirInUseError naming the process that has it.
 */
export function lockDataDir(dataDir: string, role: DataDirRole): DataDirLock {
  const file = join(dataDir, LOCK_FILE)
  let fd: number
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o750 })
    // Node and Bun open with O_CLOEXEC: no child process keeps the lock alive.
    fd = openSync(file, constants.O_RDWR | constants.O_CREAT, 0o640)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new DataDirLockError(
      `cannot use the data directory ${dataDir}: ${file} cannot be opened ` +
        `(${code}); is the directory writable by this user?`,
    )
  }
  try {
    const deadline = performance.now() + HOLDER_WAIT_MS
    while (!tryLock(fd, file)) {
      const holder = readHolder(file)
      if (holder || performance.now() > deadline) throw new DataDirInUseError(dataDir, holder)
      // The holder has just locked and not yet written its name: it does within microseconds.
      Bun.sleepSync(10)
    }
    ftruncateSync(fd, 0)
    writeSync(fd, `${JSON.stringify({ pid: process.pid, role } satisfies DataDirHolder)}\n`, 0)
  } catch (error) {
    closeSync(fd)
    throw error
  }
  let held = true
  return {
    file,
    release() {
      if (!held) return
      held = false
      try {
        // Emptied first, so the file never names a process that no longer holds it.
        ftruncateSync(fd, 0)
        libc().flock(fd, LOCK_UN)
      } finally {
        closeSync(fd)
      }
    },
  }
}

/**
 * Whether another process holds the data directory now, without taking it or creating anything:
 * the error that says who, or undefined when it is free (or has never been held).
 */
export function dataDirInUse(dataDir: string): DataDirInUseError | undefined {
  const file = join(dataDir, LOCK_FILE)
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY)
  } catch {
    // No lock file: no process has held the directory (serve and agent create it before locking).
    return undefined
  }
  try {
    if (!tryLock(fd, file)) return new DataDirInUseError(dataDir, readHolder(file))
    libc().flock(fd, LOCK_UN)
    return undefined
  } finally {
    closeSync(fd)
  }
}
