// The running hub's backups: one at a time (a daily one, or one the dashboard downloads), each made
// by a process of its own so that the hub's event loop never waits for it. With a backup directory
// set, a backup is written there every day (the first soon after start when the newest there is
// older than a day) and the newest N of the hub's own are kept. Its own: named as the hub names
// them AND marked as scheduled by this server in their manifest; any other file is left alone. A
// failed backup is logged and tried again later; it never stops the hub.
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import { ArchiveReader } from '../sqlite/archive.ts'
import { backupFileName, type BackupOutcome, parseBackupFileName } from '../services/backup.ts'
import { describeError, type Logger } from '../platform/log.ts'

/** How old the newest backup may be before the next is made. */
export const BACKUP_EVERY_MS = 86_400_000
/** How soon after start the backup directory is first looked at. */
export const FIRST_BACKUP_CHECK_MS = 60_000
/** How often it is looked at after that (a backup is made only when the newest is a day old). */
export const BACKUP_CHECK_MS = 10 * 60_000
/** After a failed backup, the next try waits this long. */
export const BACKUP_RETRY_MS = 60 * 60_000
/** Where the dashboard's downloads are made, in the data directory (removed once sent). */
export const DOWNLOADS_DIR = '.backup-downloads'

/** Makes a backup of the hub's data directory at `out`; stopped when `signal` aborts. */
export type MakeBackup = (out: string, scheduled: boolean, signal: AbortSignal) => Promise<BackupOutcome>

/** One backup at a time: a second asked for meanwhile is refused, not queued. */
export class BackupRunner {
  private current: Promise<BackupOutcome> | undefined
  private readonly stopping = new AbortController()

  constructor(private readonly make: MakeBackup) {}

  get busy(): boolean {
    return this.current !== undefined
  }

  /** The backup's outcome; undefined when one is being made already. */
  run(out: string, scheduled: boolean): Promise<BackupOutcome> | undefined {
    if (this.current || this.stopping.signal.aborted) return undefined
    const running = this.make(out, scheduled, this.stopping.signal)
      .catch((error: unknown): BackupOutcome => ({ ok: false, message: (error as Error).message }))
      .finally(() => (this.current = undefined))
    this.current = running
    return running
  }

  /** Stops a backup under way (its process is killed: no archive is left under its name) and makes no other. */
  async stop(): Promise<void> {
    this.stopping.abort()
    await this.current
  }
}

export interface OwnBackup {
  path: string
  name: string
  /** The time in its name (the hub's clock when it was made). */
  at: number
  suffix: number
}

/** The scheduled backups of server `serverId` in `dir`, newest first: by name AND manifest. */
export function ownBackups(dir: string, serverId: string): OwnBackup[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const found: OwnBackup[] = []
  for (const name of names) {
    const parsed = parseBackupFileName(name)
    if (!parsed) continue
    const path = join(dir, name)
    try {
      const reader = ArchiveReader.open(path)
      const ours = reader.complete && reader.manifest.scheduled === '1' && reader.manifest.server_id === serverId
      reader.close()
      if (ours) found.push({ path, name, ...parsed })
    } catch {
      // Not an archive (or not readable): not ours to delete.
    }
  }
  return found.sort((a, b) => b.at - a.at || b.suffix - a.suffix)
}

export interface BackupScheduleSources {
  /** The backup directory now (settings change it); empty: no scheduled backups. */
  dir(): string
  keep(): number
  serverName(): string
  serverId: string
  now(): number
  /** What each scheduled backup did (component backup): written, failed, old ones removed. */
  log: Logger
}

export interface ScheduleTimes {
  firstCheckMs: number
  checkMs: number
  retryMs: number
}

export interface CheckResult {
  /** The backup written, if one was. */
  wrote?: string
  failed?: string
  pruned: string[]
}

const MB = 1024 * 1024

export class BackupSchedule {
  private checking: Promise<CheckResult> | undefined
  private failedAt: number | undefined
  private stopped = false

  constructor(
    private readonly runner: BackupRunner,
    private readonly sources: BackupScheduleSources,
    /** When the hub's workers look (workers/hub-workers.ts), and the wait after a failed backup. */
    readonly times: ScheduleTimes = {
      firstCheckMs: FIRST_BACKUP_CHECK_MS,
      checkMs: BACKUP_CHECK_MS,
      retryMs: BACKUP_RETRY_MS,
    },
  ) {}

  /** Looks no more: a backup under way is stopped (its process killed, no archive left under its name). */
  async stop(): Promise<void> {
    this.stopped = true
    await this.runner.stop()
    await this.checking
  }

  /** One look now (none starts while another runs): a backup if the newest is a day old, then pruning. */
  check(): Promise<CheckResult> {
    this.checking ??= this.work().finally(() => (this.checking = undefined))
    return this.checking
  }

  private async work(): Promise<CheckResult> {
    const result: CheckResult = { pruned: [] }
    const dir = this.sources.dir()
    if (dir === '' || this.stopped) return result
    const now = this.sources.now()
    if (this.failedAt !== undefined && now - this.failedAt < this.times.retryMs) return result
    const newest = ownBackups(dir, this.sources.serverId)[0]
    if (newest === undefined || now - newest.at >= BACKUP_EVERY_MS) {
      const wrote = await this.write(dir, now)
      if (typeof wrote !== 'string') {
        result.failed = wrote.failed
        return result
      }
      result.wrote = wrote
    }
    result.pruned = this.prune(dir)
    return result
  }

  private async write(dir: string, now: number): Promise<string | { failed: string }> {
    let out = join(dir, backupFileName(this.sources.serverName(), now))
    let outcome: BackupOutcome | undefined
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      // Two in one minute (a moved clock) get a number rather than replacing one another.
      const taken = new Set(readdirSync(dir))
      for (let n = 1; taken.has(basename(out)); n++) out = join(dir, backupFileName(this.sources.serverName(), now, n))
      outcome = await this.runner.run(out, true)
    } catch (error) {
      outcome = { ok: false, message: `cannot write in ${dir}: ${(error as Error).message}` }
    }
    // A download is being made: the next look makes the daily one.
    if (outcome === undefined) return { failed: 'another backup is being made' }
    if (!outcome.ok) {
      // Stopped with the hub: not a failure to report.
      if (this.stopped) return { failed: outcome.message }
      this.failedAt = now
      this.sources.log.error(
        `the scheduled backup failed; trying again in ${Math.round(this.times.retryMs / 60_000)} minutes`,
        { dir, error: outcome.message },
        { limit: 'backup failed' },
      )
      return { failed: outcome.message }
    }
    this.failedAt = undefined
    const { summary } = outcome
    this.sources.log.info(
      `wrote ${summary.file} (${(summary.bytes / MB).toFixed(1)} MB, ${summary.counts.jobs} jobs, ${summary.ms} ms)`,
      { file: summary.file, bytes: summary.bytes, jobs: summary.counts.jobs, ms: summary.ms },
    )
    return summary.file
  }

  private prune(dir: string): string[] {
    const keep = this.sources.keep()
    const pruned: string[] = []
    for (const old of ownBackups(dir, this.sources.serverId).slice(keep)) {
      try {
        rmSync(old.path)
        pruned.push(old.path)
        this.sources.log.info(`removed ${old.path}, older than the newest ${keep} backups kept`, {
          file: old.path,
          keep,
        })
      } catch (error) {
        this.sources.log.warn(`could not remove the old backup ${old.path}`, {
          file: old.path,
          error: describeError(error),
        })
      }
    }
    return pruned
  }
}

/** Where a backup to download is made, what it is named after (the server, the time), and where it is logged. */
export interface BackupDownload {
  dataDir: string
  serverName: string
  now: number
  log: Logger
}

/**
 * A fresh backup for the dashboard to send, made in the data directory; undefined when one is being made. Logged, made
 * or failed.
 */
export function downloadBackup(
  runner: BackupRunner,
  { dataDir, serverName, now, log }: BackupDownload,
): Promise<BackupOutcome> | undefined {
  if (runner.busy) return undefined
  const dir = join(dataDir, DOWNLOADS_DIR)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const making = runner.run(join(dir, backupFileName(serverName, now)), false)
  void making?.then((outcome) => {
    if (outcome.ok)
      log.info(
        `made a backup to download (${(outcome.summary.bytes / MB).toFixed(1)} ` +
          `MB, ${outcome.summary.counts.jobs} jobs, ${outcome.summary.ms} ms)`,
        {
          file: outcome.summary.file,
          bytes: outcome.summary.bytes,
          jobs: outcome.summary.counts.jobs,
          ms: outcome.summary.ms,
        },
      )
    else log.error('a backup to download failed', { error: outcome.message })
  })
  return making
}

/** Removes downloads a stopped hub left behind (run at start, before any is made). */
export function clearDownloads(dataDir: string): void {
  rmSync(join(dataDir, DOWNLOADS_DIR), { recursive: true, force: true })
}
