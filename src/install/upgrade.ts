// `printhub upgrade NEW_EXECUTABLE`: the installed hub replaced by another build, and back when the
// new one does not come up. Step by step, each said as it is done: which printhub goes to which;
// a backup made by the installed printhub; the executable replaced atomically (the old one kept
// beside it); the service restarted; the new hub awaited on /health with this hub's server ID. If
// it does not answer in time: the service stopped, the old executable put back, the backup
// restored by the old printhub, the service started and awaited again, and why it rolled back.
import { chmodSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BACKUP_EXTENSION } from '../services/backup.ts'
import { StoreInspection } from '../store/inspection.ts'
import {
  BINARY_PATH,
  runtimeOptionPairs,
  SERVICE_USER,
  serviceSettingsOf,
  UNIT_PATH,
  withRuntimeOptions,
} from './files.ts'
import {
  describeVersion,
  dropOld,
  sameContent,
  type ExecutableVersion,
  executableVersion,
  putBackOld,
  replaceExecutable,
} from './executable.ts'
import {
  archive,
  backupCommand,
  backupsDirOf,
  copyDataDir,
  ensureBackupsDir,
  hasBackupCommand,
  preUpgradeName,
  prunePreUpgrade,
  putBack,
  restoreCommand,
  type Safekeeping,
  savedBackupDir,
} from './safekeeping.ts'
import { type HealthProber, httpHealth, type ServiceManager, systemd, waitForHealth } from './system.ts'

export class UpgradeError extends Error {}

export interface UpgradeOptions {
  /** Where the installation is: `/` on a real machine. */
  root: string
  /** The executable to install. */
  newExecutable: string
  /** How long the new hub has to answer /health after its start. */
  timeoutMs: number
  out: (line: string) => void
  service?: ServiceManager
  health?: (host: string, port: number) => HealthProber
  /** Gives the data directory back to the service user after a restore (chown -R). */
  chown?: (dir: string) => string | undefined
  now?: () => Date
}

export type UpgradeOutcome =
  | { kind: 'upgraded'; backup: string }
  | { kind: 'unchanged' }
  | { kind: 'rolled-back'; reason: string; backup: string }
  | { kind: 'rollback-failed'; reason: string; problem: string; backup: string }

/** Lines of the new hub's journal shown when it is rolled back. */
const JOURNAL_LINES = 15

const chownToServiceUser = (dir: string): string | undefined => {
  const result = Bun.spawnSync(['chown', '-R', `${SERVICE_USER}:${SERVICE_USER}`, dir], {
    stdout: 'pipe',
    stderr: 'pipe',
  })
  return result.exitCode === 0
    ? undefined
    : `"chown -R ${SERVICE_USER}:${SERVICE_USER} ${dir}" failed: ${result.stderr.toString().trim()}`
}

/** The installation found under `root`: its executable, unit settings and the hub's server ID. */
export function installation(root: string): {
  installed: string
  dataDir: string
  data: string
  host: string
  port: number
  serverId: string
} {
  const installed = join(root, BINARY_PATH)
  const unitFile = join(root, UNIT_PATH)
  if (!existsSync(installed) || !existsSync(unitFile))
    throw new UpgradeError(
      `printhub is not installed here ` +
        `(${existsSync(installed) ? UNIT_PATH : BINARY_PATH} is missing): install ` +
        `it with "sudo printhub install".`,
    )
  const settings = serviceSettingsOf(readFileSync(unitFile, 'utf8'))
  if (!settings)
    throw new UpgradeError(
      `${UNIT_PATH} has no printhub ExecStart line this printhub understands; ` +
        `run "sudo printhub install" with the new executable instead.`,
    )
  const data = join(root, settings.dataDir)
  const inspection = StoreInspection.open(data)
  const serverId = inspection?.serverId()
  inspection?.close()
  if (!serverId)
    throw new UpgradeError(`there is no hub data in ${settings.dataDir} (no server ID): nothing to upgrade.`)
  return { installed, dataDir: settings.dataDir, data, host: settings.host, port: settings.port, serverId }
}

/** What the pre-upgrade backup needs: the root, the installed hub and its version, the service, and its output. */
export interface PreUpgradeBackup {
  root: string
  hub: { installed: string; dataDir: string; data: string }
  previous: ExecutableVersion | undefined
  service: ServiceManager
  out: (line: string) => void
  now: () => Date
}

/**
 * The pre-upgrade backup: by the installed printhub while it runs (`online`), or, when it has no
 * backup command, a copy of its data directory with the service stopped (and left stopped).
 */
export async function preUpgradeBackup({
  root,
  hub,
  previous,
  service,
  out,
  now,
}: PreUpgradeBackup): Promise<{ kept: Safekeeping; online: boolean; backups: string }> {
  const backups = join(root, backupsDirOf(hub.dataDir, savedBackupDir(hub.data)))
  ensureBackupsDir(backups)
  const name = preUpgradeName(now(), previous?.version ?? 'unknown')
  const online = await hasBackupCommand(hub.installed)
  const kept: Safekeeping = online
    ? { kind: 'archive', path: join(backups, `${name}${BACKUP_EXTENSION}`) }
    : { kind: 'copy', path: join(backups, `${name}.data`) }
  if (online) {
    out(`1. Backing up with the installed printhub: ${backupCommand(BINARY_PATH, hub.dataDir, kept.path).join(' ')}`)
    const problem = await archive(hub.installed, hub.data, kept.path)
    if (problem) throw new UpgradeError(`the backup failed, so nothing was changed: ${problem}`)
  } else {
    out('1. The installed printhub has no backup command: stopping the service and copying its data directory')
    const problem = service.run('stop')
    if (problem) throw new UpgradeError(`${problem}; nothing was changed`)
    try {
      copyDataDir(hub.data, kept.path)
    } catch (error) {
      service.run('start')
      throw new UpgradeError(
        `copying ${hub.dataDir} to ${kept.path} failed, so nothing was changed ` +
          `(the service is started again): ${(error as Error).message}`,
      )
    }
  }
  out(`   pre-upgrade backup: ${kept.path}`)
  return { kept, online, backups }
}

export async function upgrade(options: UpgradeOptions): Promise<UpgradeOutcome> {
  const { out, root, timeoutMs } = options
  const service = options.service ?? systemd
  const chown = options.chown ?? chownToServiceUser
  const now = options.now ?? (() => new Date())
  const hub = installation(root)
  const health = (options.health ?? httpHealth)(hub.host, hub.port)

  const next = await executableVersion(options.newExecutable)
  let previous: ExecutableVersion | undefined
  try {
    previous = await executableVersion(hub.installed)
  } catch {
    previous = undefined
  }
  const from = previous ? describeVersion(previous) : 'the installed printhub (its version unknown)'
  if (sameContent(options.newExecutable, hub.installed)) {
    out(`${describeVersion(next)} is already the installed printhub (${BINARY_PATH}): nothing to do.`)
    return { kind: 'unchanged' }
  }
  out(`Upgrading ${from} -> ${describeVersion(next)}`)
  out(
    `  executable ${BINARY_PATH}, data ${hub.dataDir}, service ` +
      `printhub.service on port ${hub.port} (server ID ${hub.serverId})`,
  )

  // 1. A backup by the installed printhub, before anything changes.
  const { kept, online, backups } = await preUpgradeBackup({ root, hub, previous, service, out, now })

  // 2. The executable, replaced by rename; the old one stays beside it until the new one runs.
  out(
    `2. Replacing ${BINARY_PATH} (the old one kept as ` +
      `${BINARY_PATH.replace(/printhub$/, '.printhub.old')} until the new ` +
      `one answers)`,
  )
  try {
    replaceExecutable(options.newExecutable, hub.installed)
  } catch (error) {
    if (!online) service.run('start')
    throw new UpgradeError(
      `replacing ${BINARY_PATH} failed, so the installed printhub stays ` +
        `(${online ? 'still running' : 'started again'}): ` +
        `${(error as Error).message}`,
    )
  }

  // 3 and 4. The unit given the new executable's runtime options, the service restarted, and the new hub awaited.
  let unit: UnitBefore
  try {
    unit = giveUnitRuntimeOptions(join(root, UNIT_PATH), next, service, out)
  } catch (error) {
    const back = putBackOld(hub.installed)
    if (!online) service.run('start')
    const what = back
      ? `the installed printhub stays (${online ? 'still running' : 'started again'})`
      : `the new executable stays at ${BINARY_PATH} with the old unit: nothing was restarted`
    throw new UpgradeError(`${(error as Error).message}, so ${what}`)
  }
  out(
    `3. ${online ? 'Restarting' : 'Starting'} the service: systemctl ${online ? 'restart' : 'start'} printhub.service`,
  )
  let reason: string | undefined = service.run(online ? 'restart' : 'start')
  if (!reason) {
    out(`4. Waiting up to ${timeoutMs / 1000} s for the new printhub to answer /health as server ${hub.serverId}`)
    const answered = await waitForHealth(health, hub.serverId, timeoutMs)
    if (answered.ok) {
      dropOld(hub.installed)
      const pruned = prunePreUpgrade(backups)
      out(
        `   it answers after ${(answered.afterMs / 1000).toFixed(1)} ` +
          `s${answered.diskFull ? ' (503: its disk is close to full)' : ''}`,
      )
      if (pruned.length > 0) out(`   older pre-upgrade backups removed: ${pruned.join(', ')}`)
      out(`Upgraded to ${describeVersion(next)}. The pre-upgrade backup stays in ${kept.path}.`)
      return { kind: 'upgraded', backup: kept.path }
    }
    reason = `the new printhub did not answer /health within ${timeoutMs / 1000} s (${answered.last})`
  }
  return rollBack({ ...hub, options, service, chown, health, kept, reason, from, now, unit })
}

/** A unit file, and its text before the upgrade changed it (undefined when it did not). */
interface UnitBefore {
  file: string
  text: string | undefined
}

function writeUnit(file: string, text: string): void {
  const staged = `${file}.printhub-new`
  writeFileSync(staged, text)
  chmodSync(staged, statSync(file).mode & 0o777)
  renameSync(staged, file)
}

/**
 * The unit's runtime options (`Environment=BUN_JSC_…`) made the new executable's: its runtime
 * refuses to start on an option it does not know. Put back by the rollback; when it cannot be
 * written or systemd not told, the unit is left as it was and this throws.
 */
function giveUnitRuntimeOptions(
  file: string,
  next: ExecutableVersion,
  service: ServiceManager,
  out: (line: string) => void,
): UnitBefore {
  const text = readFileSync(file, 'utf8')
  const wanted = withRuntimeOptions(text, next.runtimeOptions ?? {})
  if (wanted === text) return { file, text: undefined }
  const options = runtimeOptionPairs(next.runtimeOptions ?? {})
  out(
    `   ${UNIT_PATH} given the new printhub's runtime options ` +
      `(${options.length > 0 ? options.join(' ') : 'none'}): systemctl ` +
      `daemon-reload`,
  )
  try {
    writeUnit(file, wanted)
  } catch (error) {
    throw new Error(`writing ${UNIT_PATH} failed (${(error as Error).message})`)
  }
  const problem = service.reload()
  if (problem) {
    writeUnit(file, text)
    service.reload()
    throw new Error(problem)
  }
  return { file, text }
}

interface RollBack {
  installed: string
  dataDir: string
  data: string
  serverId: string
  options: UpgradeOptions
  service: ServiceManager
  chown: (dir: string) => string | undefined
  health: HealthProber
  kept: Safekeeping
  reason: string
  from: string
  now: () => Date
  unit: UnitBefore
}

async function rollBack({
  installed,
  dataDir,
  data,
  serverId,
  options,
  service,
  chown,
  health,
  kept,
  reason,
  from,
  now,
  unit,
}: RollBack): Promise<UpgradeOutcome> {
  const { out } = options
  out(`Rolling back: ${reason}.`)
  const journal = service.journal(JOURNAL_LINES)
  if (journal.length > 0) {
    out(`   the new printhub's last log lines (journalctl -u printhub):`)
    for (const line of journal) out(`   | ${line}`)
  }
  const problems: string[] = []
  out('5. Stopping the service: systemctl stop printhub.service')
  const stopped = service.run('stop')
  if (stopped) problems.push(stopped)
  out(`6. Putting the old executable back at ${BINARY_PATH}`)
  if (!putBackOld(installed)) problems.push(`the old executable was not kept beside ${BINARY_PATH}`)
  if (unit.text !== undefined) {
    out(`   and ${UNIT_PATH} as it was: systemctl daemon-reload`)
    try {
      writeUnit(unit.file, unit.text)
      const reloaded = service.reload()
      if (reloaded) problems.push(reloaded)
    } catch (error) {
      problems.push(`putting ${UNIT_PATH} back failed: ${(error as Error).message}`)
    }
  }
  out(
    kept.kind === 'archive'
      ? `7. Restoring the pre-upgrade backup with the old printhub: ` +
          `${restoreCommand(BINARY_PATH, kept.path, dataDir).join(' ')}`
      : `7. Putting the copy of the data directory back: ${kept.path} -> ${dataDir}`,
  )
  const restored = await putBack(kept, installed, data, now())
  if (restored) problems.push(restored)
  else {
    const owned = chown(data)
    if (owned) problems.push(owned)
  }
  out('8. Starting the service: systemctl start printhub.service')
  // A new printhub that kept failing may have hit the unit's start limit: cleared, or start is refused.
  service.run('reset-failed')
  const started = service.run('start')
  if (started) problems.push(started)
  else {
    const answered = await waitForHealth(health, serverId, options.timeoutMs)
    if (answered.ok) out(`   ${from} answers /health again after ${(answered.afterMs / 1000).toFixed(1)} s`)
    else problems.push(`the old printhub does not answer /health either (${answered.last})`)
  }
  if (problems.length > 0) {
    out(`The rollback did not complete: ${problems.join('; ')}. The pre-upgrade backup is ${kept.path}.`)
    return { kind: 'rollback-failed', reason, problem: problems.join('; '), backup: kept.path }
  }
  out(`Rolled back to ${from}, with the data as it was before the upgrade, because ${reason}.`)
  return { kind: 'rolled-back', reason, backup: kept.path }
}
