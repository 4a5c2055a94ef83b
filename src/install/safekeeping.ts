// The pre-upgrade backup, and putting it back. Made by the installed (old) executable with its own
// `printhub backup --data DIR --out FILE` while the hub runs, and put back with its own
// `printhub restore FILE --data DIR --force`: the program that wrote the data is the one that
// reads it. A printhub released before it had a backup command gets a plain copy of its data
// directory instead, made while its service is stopped (so the SQLite files are at rest).
// They go into the backup-dir setting when set, else into DATA-backups beside the data directory
// (outside it: a restore replaces the data directory whole); the newest few pre-upgrade ones stay.
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { SAVED_SETTINGS_KEY } from '../services/live-settings.ts'
import { StoreInspection } from '../store/inspection.ts'
import { run } from './executable.ts'

/** How many pre-upgrade backups are kept in the backups directory (the newest). */
export const KEPT_PRE_UPGRADE_BACKUPS = 3
export const PRE_UPGRADE_PREFIX = 'pre-upgrade-'
const BACKUP_TIMEOUT_MS = 10 * 60_000

export interface Safekeeping {
  /** An archive of `printhub backup`, or a copy of the data directory. */
  kind: 'archive' | 'copy'
  path: string
}

/** The backup-dir setting saved in the data directory, when one is set. */
export function savedBackupDir(dataDir: string): string | undefined {
  const inspection = StoreInspection.open(dataDir)
  if (!inspection) return undefined
  try {
    const saved = JSON.parse(inspection.setting(SAVED_SETTINGS_KEY) ?? '{}') as { backupDir?: unknown }
    return typeof saved.backupDir === 'string' && saved.backupDir.startsWith('/') ? saved.backupDir : undefined
  } catch {
    return undefined
  } finally {
    inspection.close()
  }
}

/** Where pre-upgrade backups go: the backup-dir setting, else DATA-backups beside the data directory. */
export const backupsDirOf = (dataDir: string, saved: string | undefined): string =>
  saved ?? `${dataDir.replace(/\/+$/, '')}-backups`

/** Whether the executable has the `backup` command (releases before it had none). */
export async function hasBackupCommand(executable: string): Promise<boolean> {
  const help = await run([executable, '--help'], 10_000)
  return help.code === 0 && /^ {2}backup /m.test(help.output)
}

/** A name that sorts by time: pre-upgrade-20261125T190102Z-0.1.0. */
export const preUpgradeName = (at: Date, oldVersion: string): string =>
  `${PRE_UPGRADE_PREFIX}${at.toISOString().replace(/[-:]|\.\d+/g, '')}-${oldVersion.replace(/[^\w.+-]/g, '_')}`

/** The backup command line, as it is run and shown. */
export const backupCommand = (executable: string, dataDir: string, file: string): string[] => [
  executable,
  'backup',
  '--data',
  dataDir,
  '--out',
  file,
]
export const restoreCommand = (executable: string, file: string, dataDir: string): string[] => [
  executable,
  'restore',
  file,
  '--data',
  dataDir,
  '--force',
]

/** `printhub backup` by `executable`, into `file`; the problem, in words, when it fails. */
export async function archive(executable: string, dataDir: string, file: string): Promise<string | undefined> {
  const result = await run(backupCommand(executable, dataDir, file), BACKUP_TIMEOUT_MS)
  return result.code === 0
    ? undefined
    : `"${backupCommand(executable, dataDir, file).join(' ')}" failed ` +
        `(${result.code === null ? 'timed out' : `exit ${result.code}`})${result.output ? `: ${result.output}` : ''}`
}

/** A copy of a stopped hub's data directory. */
export function copyDataDir(dataDir: string, to: string): void {
  cpSync(dataDir, to, { recursive: true, preserveTimestamps: true, errorOnExist: true, force: false })
}

/**
 * Puts the safekept data back into `dataDir` (its service stopped). The data directory as it was
 * is kept aside as DATA.replaced-STAMP, as `printhub restore --force` does. The problem, if any.
 */
export async function putBack(
  kept: Safekeeping,
  executable: string,
  dataDir: string,
  at: Date,
): Promise<string | undefined> {
  if (kept.kind === 'archive') {
    const result = await run(restoreCommand(executable, kept.path, dataDir), BACKUP_TIMEOUT_MS)
    return result.code === 0
      ? undefined
      : `"${restoreCommand(executable, kept.path, dataDir).join(' ')}" failed ` +
          `(${result.code === null ? 'timed out' : `exit ${result.code}`})${result.output ? `: ${result.output}` : ''}`
  }
  try {
    if (existsSync(dataDir)) renameSync(dataDir, `${dataDir}.replaced-${at.toISOString().replace(/[-:]|\.\d+/g, '')}`)
    cpSync(kept.path, dataDir, { recursive: true, preserveTimestamps: true })
    return undefined
  } catch (error) {
    return `copying ${kept.path} back to ${dataDir} failed: ${(error as Error).message}`
  }
}

export function ensureBackupsDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
}

/** Removes all but the newest KEPT_PRE_UPGRADE_BACKUPS pre-upgrade backups; returns what it removed. */
export function prunePreUpgrade(dir: string, keep = KEPT_PRE_UPGRADE_BACKUPS): string[] {
  if (!existsSync(dir)) return []
  const ours = readdirSync(dir)
    .filter((name) => name.startsWith(PRE_UPGRADE_PREFIX))
    .sort()
  const gone = ours.slice(0, Math.max(0, ours.length - keep))
  for (const name of gone) rmSync(join(dir, name), { recursive: true, force: true })
  return gone.map((name) => join(dir, name))
}
