// A backup of a hub's data directory, made while the hub runs: a consistent snapshot of its
// database by SQLite itself (what the write-ahead log holds included; the built-in agent's ledger
// is in it too) and the built-in agent's private key, in one archive (sqlite/archive.ts) of mode
// 0600. The work happens in a folder beside the archive's place; only a complete, flushed archive
// is renamed to its name, so a backup stopped half way never leaves a file there.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { KEY_FILE } from '../agent/identity.ts'
import { fsyncPath } from '../platform/durable-file.ts'
import { LEDGER_FILE, LEDGER_SCHEMA } from '../agent/ledger-schema.ts'
import { DEFAULT_SERVER_NAME } from '../domain/settings.ts'
import { BUILD_COMMIT, VERSION } from '../domain/version.ts'
import { type ArchiveMember, ArchiveWriter } from '../sqlite/archive.ts'
import { snapshotDatabase } from '../sqlite/database.ts'
import { DATABASE_FILE, HUB_SCHEMA } from '../store/database.ts'
import { type RecordCounts, StoreInspection } from '../store/inspection.ts'
import { BUILTIN_AGENT_DIR, SERVER_ID_SETTING } from './init.ts'
import { SAVED_SETTINGS_KEY } from './live-settings.ts'

/** The members of a backup, by their path in the data directory: the database, then the built-in agent's key. */
export const BACKUP_DATABASE = DATABASE_FILE
export const BACKUP_AGENT_KEY = `${BUILTIN_AGENT_DIR}/${KEY_FILE}`
/**
 * The built-in agent's ledger in a file of its own, as printhub kept it before it moved into the
 * hub's database: in a backup (as a snapshot, like the database) when a data directory still has it.
 */
export const BACKUP_AGENT_LEDGER = `${BUILTIN_AGENT_DIR}/${LEDGER_FILE}`

export const BACKUP_EXTENSION = '.phbackup'
/** The folder a backup is made in, beside its archive's place: `.NAME.backup-partial-PID`. */
const WORK_MARK = '.backup-partial-'
const WORK_PATTERN = /^\..+\.backup-partial-(\d+)$/
/** What a work folder holds: the snapshot and the archive being written. */
const WORK_ARCHIVE = 'archive'
const isWorkFile = (name: string) =>
  [DATABASE_FILE, LEDGER_FILE, WORK_ARCHIVE].some(
    (file) => name === file || name === `${file}-wal` || name === `${file}-shm` || name === `${file}-journal`,
  )

export interface BackupSummary {
  file: string
  bytes: number
  createdAt: string
  serverId: string
  printhubVersion: string
  storeSchemaVersion: number
  ledgerSchemaVersion: number
  /** One of the hub's scheduled backups (which it prunes). */
  scheduled: boolean
  members: ArchiveMember[]
  counts: RecordCounts
  ms: number
}

export type BackupOutcome = { ok: true; summary: BackupSummary } | { ok: false; message: string }

export interface BackupOptions {
  dataDir: string
  /** The archive to write; replaced (at once, when the new one is complete) if it exists. */
  out: string
  scheduled?: boolean
}

/** The name of a backup the hub makes: `printhub-backup-SERVERNAME-YYYYMMDD-HHMM.phbackup` (UTC). */
export function backupFileName(serverName: string, at: number, suffix = 0): string {
  const safe =
    serverName
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || DEFAULT_SERVER_NAME
  const time = new Date(at).toISOString()
  const stamp = `${time.slice(0, 10).replaceAll('-', '')}-${time.slice(11, 16).replace(':', '')}`
  return `printhub-backup-${safe}-${stamp}${suffix > 0 ? `-${suffix}` : ''}${BACKUP_EXTENSION}`
}

/** The time and order in a name backupFileName made; undefined for any other name. */
export function parseBackupFileName(name: string): { at: number; suffix: number } | undefined {
  const match = /^printhub-backup-[A-Za-z0-9_-]+-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(?:-(\d{1,4}))?\.phbackup$/.exec(
    name,
  )
  if (!match) return undefined
  const [, year, month, day, hour, minute, suffix] = match
  const at = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute))
  return Number.isNaN(at) ? undefined : { at, suffix: Number(suffix ?? 0) }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** Whether process `pid` still runs (a leftover temporary file's writer, say). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Removes the work folders of backups stopped half way in `dir` (their process is gone): only folders that are ours by
 * name and content.
 */
function removeAbandonedWork(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const pid = WORK_PATTERN.exec(entry.name)?.[1]
    if (!pid || !entry.isDirectory() || Number(pid) === process.pid || isAlive(Number(pid))) continue
    const path = join(dir, entry.name)
    if (readdirSync(path).every(isWorkFile)) rmSync(path, { recursive: true, force: true })
  }
}

/** The server name the database keeps (as the dashboard saved it), for the manifest. */
function savedServerName(inspection: StoreInspection): string {
  try {
    const saved = JSON.parse(inspection.setting(SAVED_SETTINGS_KEY) ?? '{}') as { serverName?: unknown }
    return typeof saved.serverName === 'string' ? saved.serverName : DEFAULT_SERVER_NAME
  } catch {
    return DEFAULT_SERVER_NAME
  }
}

const failed = (message: string): BackupOutcome => ({ ok: false, message })

/** Makes a backup of the data directory; what it wrote, or why it could not. Takes no lock: the hub goes on. */
export function makeBackup(options: BackupOptions): BackupOutcome {
  const started = performance.now()
  const dataDir = resolve(options.dataDir)
  const out = resolve(options.out)
  const database = join(dataDir, DATABASE_FILE)
  if (!existsSync(database))
    return failed(
      `there is no printhub data in ${dataDir} (no ${DATABASE_FILE}); pass the hub's data directory with --data`,
    )
  const parent = dirname(out)
  if (!isDirectory(parent))
    return failed(`the directory ${parent} does not exist; create it first, or write the backup elsewhere`)
  if (isDirectory(out)) return failed(`${out} is a directory; --out names the archive file to write`)
  const work = join(parent, `.${basename(out)}${WORK_MARK}${process.pid}`)
  try {
    removeAbandonedWork(parent)
    rmSync(work, { recursive: true, force: true })
    mkdirSync(work, { mode: 0o700 })
  } catch (error) {
    return failed(`cannot write in ${parent}: ${(error as Error).message}`)
  }
  try {
    const snapshot = join(work, DATABASE_FILE)
    snapshotDatabase(database, snapshot)
    const inspection = StoreInspection.open(work)
    if (!inspection) return failed(`the snapshot of ${database} cannot be read`)
    let manifest: Record<string, string | number>
    let counts: RecordCounts
    try {
      counts = inspection.counts()
      manifest = {
        printhub_version: VERSION,
        printhub_commit: BUILD_COMMIT,
        store_schema_version: inspection.schemaVersion(HUB_SCHEMA),
        ledger_schema_version: inspection.schemaVersion(LEDGER_SCHEMA),
        server_id: inspection.setting(SERVER_ID_SETTING) ?? '',
        server_name: savedServerName(inspection),
        data_dir: dataDir,
        scheduled: options.scheduled ? 1 : 0,
      }
    } finally {
      inspection.close()
    }
    const writer = ArchiveWriter.create(join(work, WORK_ARCHIVE))
    const members: ArchiveMember[] = []
    const createdAt = new Date().toISOString()
    try {
      members.push(writer.addFile(BACKUP_DATABASE, snapshot, statSync(database).mode))
      // The snapshot is not needed once in the archive: the disk holds one copy more, not two.
      rmSync(snapshot)
      const key = join(dataDir, BACKUP_AGENT_KEY)
      if (existsSync(key)) members.push(writer.addFile(BACKUP_AGENT_KEY, key, statSync(key).mode))
      const ledger = join(dataDir, BACKUP_AGENT_LEDGER)
      if (existsSync(ledger)) {
        const ledgerSnapshot = join(work, LEDGER_FILE)
        snapshotDatabase(ledger, ledgerSnapshot)
        members.push(writer.addFile(BACKUP_AGENT_LEDGER, ledgerSnapshot, statSync(ledger).mode))
        rmSync(ledgerSnapshot)
      }
      writer.finish({ ...manifest, created_at: createdAt })
    } catch (error) {
      writer.abandon()
      throw error
    }
    renameSync(join(work, WORK_ARCHIVE), out)
    fsyncPath(parent)
    return {
      ok: true,
      summary: {
        file: out,
        bytes: statSync(out).size,
        createdAt,
        serverId: String(manifest.server_id),
        printhubVersion: VERSION,
        storeSchemaVersion: Number(manifest.store_schema_version),
        ledgerSchemaVersion: Number(manifest.ledger_schema_version),
        scheduled: options.scheduled === true,
        members,
        counts,
        ms: Math.round(performance.now() - started),
      },
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const hint =
      code === 'EACCES'
        ? ' (run it as the user the hub runs as)'
        : code === 'ENOSPC' || code === 'SQLITE_FULL'
          ? ` (the disk of ${parent} is full)`
          : ''
    return failed(`the backup could not be written: ${(error as Error).message}${hint}`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
