// Restoring a backup into a data directory. The archive is checked before anything is touched: it
// is a printhub backup, written to the end, sound (SQLite's integrity check of the archive and of
// the database in it, each member's size and SHA-256), and not from a newer printhub. It is then
// unpacked into a folder beside the target, which takes the target's place in one rename; a
// failure on the way leaves the target as it was. A directory replaced with `force` is kept aside.
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { LEDGER_SCHEMA } from '../agent/ledger-schema.ts'
import { VERSION } from '../domain/version.ts'
import { DataDirInUseError, dataDirInUse, lockDataDir } from '../platform/data-dir-lock.ts'
import { fsyncPath } from '../platform/durable-file.ts'
import { ARCHIVE_FORMAT_VERSION, ArchiveReader, NotAnArchiveError } from '../sqlite/archive.ts'
import { fileIntegrityProblems, knownSchemaVersion } from '../sqlite/database.ts'
import { HUB_SCHEMA } from '../store/database.ts'
import { type RecordCounts, StoreInspection } from '../store/inspection.ts'
import { BACKUP_AGENT_KEY, BACKUP_AGENT_LEDGER, BACKUP_DATABASE, isAlive } from './backup.ts'
import { BUILTIN_AGENT_DIR, SERVER_ID_SETTING } from './init.ts'

const KNOWN_MEMBERS: readonly string[] = [BACKUP_DATABASE, BACKUP_AGENT_KEY, BACKUP_AGENT_LEDGER]

export interface RestoreOptions {
  file: string
  dataDir: string
  /** Replace a data directory that is not empty (it is kept aside, renamed). */
  force: boolean
  now?: () => number
}

export interface RestoreSummary {
  dataDir: string
  file: string
  serverId: string
  /** When the backup was made, and by which printhub. */
  createdAt: string
  printhubVersion: string
  storeSchemaVersion: number
  counts: RecordCounts
  /** Where the directory it replaced was kept; null when there was none (or it was empty). */
  replacedDir: string | null
  ms: number
}

export type RestoreRefusal = 'not_an_archive' | 'damaged' | 'too_new' | 'in_use' | 'not_empty' | 'failed'
export type RestoreOutcome =
  | { ok: true; summary: RestoreSummary }
  | { ok: false; reason: RestoreRefusal; message: string }

class Refused extends Error {
  constructor(
    readonly reason: RestoreRefusal,
    message: string,
  ) {
    super(message)
  }
}

/** `YYYYMMDD-HHMMSS`, UTC. */
function stamp(at: number): string {
  const iso = new Date(at).toISOString()
  return `${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}`
}

/**
 * The archive's own checks, before the target is looked at: what it is, that it is whole, that this printhub can read
 * it.
 */
function checkArchive(reader: ArchiveReader, file: string): { storeSchemaVersion: number } {
  const { manifest } = reader
  const madeBy = `printhub ${manifest.printhub_version ?? '(unknown version)'}`
  if (Number(manifest.format_version) > ARCHIVE_FORMAT_VERSION) {
    throw new Refused(
      'too_new',
      `${file} was made by ${madeBy} in archive format ` +
        `${manifest.format_version}; this is printhub ${VERSION}, which reads ` +
        `format ${ARCHIVE_FORMAT_VERSION}. Restore it with ${madeBy} or newer.`,
    )
  }
  if (!reader.complete)
    throw new Refused(
      'damaged',
      `${file} was not written to the end (its backup was stopped half way); use another backup`,
    )
  const problems = reader.integrityProblems()
  if (problems.length > 0) throw new Refused('damaged', `${file} is damaged: ${problems.slice(0, 3).join('; ')}`)
  const store = Number(manifest.store_schema_version)
  const ledger = Number(manifest.ledger_schema_version)
  const knownStore = knownSchemaVersion(HUB_SCHEMA)
  const knownLedger = knownSchemaVersion(LEDGER_SCHEMA)
  if (!Number.isSafeInteger(store) || !Number.isSafeInteger(ledger))
    throw new Refused('damaged', `${file} is damaged: its manifest has no schema versions`)
  if (store > knownStore || ledger > knownLedger) {
    throw new Refused(
      'too_new',
      `${file} was made by ${madeBy} (store schema version ${store}, ledger ` +
        `schema version ${ledger}); this is printhub ${VERSION}, which knows ` +
        `store schema version ${knownStore} and ledger schema version ` +
        `${knownLedger}. Restore it with ${madeBy} or newer.`,
    )
  }
  const names = reader.members().map((member) => member.name)
  const unknown = names.find((name) => !KNOWN_MEMBERS.includes(name))
  if (unknown)
    throw new Refused(
      'too_new',
      `${file} holds ${unknown}, which this printhub (${VERSION}) does not restore; restore it with ${madeBy} or newer`,
    )
  if (!names.includes(BACKUP_DATABASE)) throw new Refused('damaged', `${file} holds no ${BACKUP_DATABASE}`)
  return { storeSchemaVersion: store }
}

/** Unpacks the archive into `staging` and checks what came out; the database's record counts. */
function unpack(reader: ArchiveReader, file: string, staging: string, storeSchemaVersion: number): RecordCounts {
  mkdirSync(staging, { mode: 0o750 })
  mkdirSync(join(staging, BUILTIN_AGENT_DIR), { mode: 0o700 })
  for (const { name } of reader.members()) {
    const problem = reader.extract(name, join(staging, name))
    if (problem) throw new Refused('damaged', `${file} is damaged: ${problem}`)
  }
  if (existsSync(join(staging, BACKUP_AGENT_LEDGER))) {
    const problems = fileIntegrityProblems(join(staging, BACKUP_AGENT_LEDGER))
    if (problems.length > 0)
      throw new Refused(
        'damaged',
        `${file} is damaged: its ${BACKUP_AGENT_LEDGER} fails SQLite's integrity ` +
          `check (${problems.slice(0, 3).join('; ')})`,
      )
  }
  const inspection = StoreInspection.open(staging)
  if (!inspection) throw new Refused('damaged', `${file} is damaged: its ${BACKUP_DATABASE} cannot be opened`)
  try {
    const problems = inspection.integrityProblems(true)
    if (problems.length > 0)
      throw new Refused(
        'damaged',
        `${file} is damaged: its database fails SQLite's integrity check (${problems.slice(0, 3).join('; ')})`,
      )
    const found = inspection.schemaVersion(HUB_SCHEMA)
    if (found !== storeSchemaVersion)
      throw new Refused(
        'damaged',
        `${file} is damaged: its database is at schema version ${found}, its manifest says ${storeSchemaVersion}`,
      )
    if (inspection.setting(SERVER_ID_SETTING) !== (reader.manifest.server_id || undefined))
      throw new Refused('damaged', `${file} is damaged: its database is not of the server its manifest names`)
    return inspection.counts()
  } finally {
    inspection.close()
  }
}

/** As root: the restored files get the owner of the directory they replace (the user the hub runs as). */
function takeOwnership(staging: string, target: string): void {
  if (process.getuid?.() !== 0 || !existsSync(target)) return
  const { uid, gid, mode } = statSync(target)
  chmodSync(staging, mode & 0o7777)
  const chown = (path: string) => {
    chownSync(path, uid, gid)
    if (lstatSync(path).isDirectory()) for (const name of readdirSync(path)) chown(join(path, name))
  }
  chown(staging)
}

/**
 * Restores the backup `file` into the data directory; what it restored, or why it refused (the target then is as it
 * was).
 */
export function restoreBackup(options: RestoreOptions): RestoreOutcome {
  const started = performance.now()
  const now = options.now ?? Date.now
  const file = resolve(options.file)
  // Through a symbolic link to where the data really is: the restored directory goes there.
  const named = resolve(options.dataDir)
  const target = existsSync(named) ? realpathSync(named) : named
  if (!existsSync(file) || !statSync(file).isFile())
    return { ok: false, reason: 'not_an_archive', message: `${file} does not exist or is not a file` }
  let reader: ArchiveReader
  try {
    reader = ArchiveReader.open(file)
  } catch (error) {
    if (error instanceof NotAnArchiveError) return { ok: false, reason: 'not_an_archive', message: error.message }
    throw error
  }
  const parent = dirname(target)
  const staging = join(parent, `.${basename(target)}.restoring-${process.pid}`)
  try {
    const { storeSchemaVersion } = checkArchive(reader, file)
    const exists = existsSync(target)
    if (exists && !statSync(target).isDirectory()) throw new Refused('failed', `${target} is a file, not a directory`)
    const inUse = exists ? dataDirInUse(target) : undefined
    if (inUse) throw new Refused('in_use', `${inUse.message} (a running hub's data cannot be replaced)`)
    const present = exists ? readdirSync(target) : []
    if (present.length > 0 && !options.force) {
      throw new Refused(
        'not_empty',
        `${target} is not empty (it holds ` +
          `${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}); ` +
          `restore into an empty or new directory, or add --force to put the backup ` +
          `in its place (the present one is then kept as ${target}.replaced-…)`,
      )
    }
    mkdirSync(parent, { recursive: true })
    for (const name of readdirSync(parent)) {
      const pid = new RegExp(`^\\.${RegExp.escape(basename(target))}\\.restoring-(\\d+)$`).exec(name)?.[1]
      if (pid && !isAlive(Number(pid))) rmSync(join(parent, name), { recursive: true, force: true })
    }
    rmSync(staging, { recursive: true, force: true })
    const counts = unpack(reader, file, staging, storeSchemaVersion)
    takeOwnership(staging, target)
    fsyncPath(join(staging, BUILTIN_AGENT_DIR))
    fsyncPath(staging)
    let replacedDir: string | null = null
    if (present.length > 0) {
      // Held through the swap: a hub starting now is refused rather than opening a directory on its way out.
      let lock
      try {
        lock = lockDataDir(target, 'restore')
      } catch (error) {
        if (error instanceof DataDirInUseError)
          throw new Refused('in_use', `${error.message} (a running hub's data cannot be replaced)`)
        throw error
      }
      try {
        replacedDir = `${target}.replaced-${stamp(now())}`
        for (let n = 2; existsSync(replacedDir); n++) replacedDir = `${target}.replaced-${stamp(now())}-${n}`
        renameSync(target, replacedDir)
        try {
          renameSync(staging, target)
        } catch (error) {
          renameSync(replacedDir, target)
          throw error
        }
      } finally {
        lock.release()
      }
    } else {
      try {
        // Over an empty directory, or where there is none.
        renameSync(staging, target)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOTEMPTY' || code === 'EEXIST')
          throw new Refused(
            'not_empty',
            `${target} is no longer empty (something wrote to it meanwhile); nothing was restored`,
          )
        throw error
      }
    }
    fsyncPath(parent)
    const { manifest } = reader
    return {
      ok: true,
      summary: {
        dataDir: target,
        file,
        serverId: manifest.server_id ?? '',
        createdAt: manifest.created_at!,
        printhubVersion: manifest.printhub_version ?? '',
        storeSchemaVersion,
        counts,
        replacedDir,
        ms: Math.round(performance.now() - started),
      },
    }
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.reason, message: error.message }
    const code = (error as NodeJS.ErrnoException).code
    const hint =
      code === 'EACCES'
        ? ` (${parent} must be writable: run restore as the user the hub runs as, or as root)`
        : code === 'ENOSPC' || code === 'SQLITE_FULL'
          ? ` (the disk of ${parent} is full)`
          : ''
    return {
      ok: false,
      reason: 'failed',
      message: `the backup could not be restored: ${(error as Error).message}${hint}; ${target} is as it was`,
    }
  } finally {
    reader.close()
    rmSync(staging, { recursive: true, force: true })
  }
}
