import { DEFAULTS, resolveConfig } from '../../hub/config.ts'
import { DEFAULT_INSTALL_DATA_DIR } from '../../install/files.ts'
import { architectureProblem, ExecutableError } from '../../install/executable.ts'
import { InstallError, install, isCompiled, uninstall } from '../../install/install.ts'
import { KEPT_PRE_UPGRADE_BACKUPS } from '../../install/safekeeping.ts'
import { upgrade, UpgradeError } from '../../install/upgrade.ts'
import { CliError, type Command, noPositionals, positional, UsageError } from '../command.ts'

const ROOT_HELP = '--root DIR        write the files under DIR instead of / (to stage an image; commands still run)'

/** Checked before anything is touched. */
function requireInstallable(): void {
  if (!isCompiled())
    throw new CliError(
      'install and uninstall work on the compiled executable, not the sources: ' +
        'build it with "npm run build" and run dist/printhub-linux-arm64.',
    )
  requireRoot()
}

const requireRoot = (): void => {
  if (process.getuid?.() !== 0) throw new CliError('this needs root: run it with sudo')
}

/** Exit codes of upgrade besides 0 (upgraded) and 1 (refused or failed before anything changed). */
export const ROLLED_BACK_EXIT = 3
export const ROLLBACK_FAILED_EXIT = 4
const DEFAULT_UPGRADE_TIMEOUT_S = 60

export const installCommand: Command = {
  name: 'install',
  summary: 'install printhub as a systemd service (user, data directory, unit, udev rule), start it',
  usage: '[--port P] [--host H] [--data DIR] [--root DIR]',
  help: [
    `--port P          port to listen on (default ${DEFAULTS.port})`,
    `--host H          address to listen on (default ${DEFAULTS.host}: the whole LAN)`,
    `--data DIR        data directory (default ${DEFAULT_INSTALL_DATA_DIR})`,
    ROOT_HELP,
    'Creates the system user printhub (groups dialout and lp), the data directory, the unit',
    'printhub.service (restart on failure, hardened) and a udev rule for USB printers, copies this',
    'executable to /usr/local/bin/printhub, then starts the service and prints the URL, the project',
    'and the first API key. Running it again updates the installation (for example the port).',
  ],
  options: { port: { type: 'string' }, host: { type: 'string' }, data: { type: 'string' }, root: { type: 'string' } },
  async run(args, io) {
    noPositionals(args)
    requireInstallable()
    const config = resolveConfig(
      {
        host: args.values.host as string | undefined,
        port: args.values.port as string | undefined,
        data: (args.values.data as string | undefined) ?? DEFAULT_INSTALL_DATA_DIR,
      },
      {},
    )
    try {
      await install({
        dataDir: config.dataDir,
        host: config.host,
        port: config.port,
        root: (args.values.root as string | undefined) ?? '/',
        executable: process.execPath,
        maxOpenJobsPerProject: config.maxOpenJobsPerProject,
        out: io.out,
      })
    } catch (error) {
      if (error instanceof InstallError || error instanceof UpgradeError) throw new CliError(error.message)
      throw error
    }
  },
}

export const uninstallCommand: Command = {
  name: 'uninstall',
  summary: 'stop and remove the service, its unit, udev rule, user and executable; keep the data unless --purge',
  usage: '[--data DIR] [--purge] [--root DIR]',
  help: [
    `--data DIR        data directory (default ${DEFAULT_INSTALL_DATA_DIR})`,
    '--purge           remove the data directory too: every job, key and printer',
    ROOT_HELP,
  ],
  options: { data: { type: 'string' }, purge: { type: 'boolean' }, root: { type: 'string' } },
  run(args, io) {
    noPositionals(args)
    requireInstallable()
    try {
      uninstall({
        dataDir: (args.values.data as string | undefined) ?? DEFAULT_INSTALL_DATA_DIR,
        root: (args.values.root as string | undefined) ?? '/',
        purge: args.values.purge === true,
        out: io.out,
      })
    } catch (error) {
      if (error instanceof InstallError) throw new CliError(error.message)
      throw error
    }
  },
}

export const upgradeCommand: Command = {
  name: 'upgrade',
  summary: 'replace the installed printhub with NEW_EXECUTABLE, backed up first; rolled back if it does not come up',
  usage: 'NEW_EXECUTABLE [--timeout SECONDS] [--root DIR]',
  help: [
    'NEW_EXECUTABLE    the printhub to install (checked first: this machine\'s architecture, "version --json")',
    `--timeout SECONDS how long the new printhub has to answer /health after ` +
      `its start (default ${DEFAULT_UPGRADE_TIMEOUT_S})`,
    ROOT_HELP,
    'Backs up with the installed printhub (printhub backup --data DIR --out FILE) into the backup-dir',
    `setting, else DIR-backups beside the data directory (the newest ` +
      `${KEPT_PRE_UPGRADE_BACKUPS} pre-upgrade backups stay), replaces`,
    '/usr/local/bin/printhub by rename (the old one kept as .printhub.old), restarts printhub.service and',
    "waits for /health with this hub's server ID. If it does not answer in time, it stops the service,",
    'puts the old executable back, restores the backup with it (printhub restore FILE --data DIR --force)',
    `and starts it again. Exit 0: upgraded; 1: refused, nothing changed; ` +
      `${ROLLED_BACK_EXIT}: rolled back; ${ROLLBACK_FAILED_EXIT}: the rollback ` +
      `failed too.`,
  ],
  options: { timeout: { type: 'string' }, root: { type: 'string' } },
  async run(args, io) {
    const executable = positional(args, 0, 'NEW_EXECUTABLE', 1)
    const timeout = (args.values.timeout as string | undefined) ?? String(DEFAULT_UPGRADE_TIMEOUT_S)
    if (!/^\d+$/.test(timeout) || Number(timeout) < 1 || Number(timeout) > 3600)
      throw new UsageError('--timeout must be a whole number of seconds from 1 to 3600')
    requireRoot()
    const wrong = architectureProblem(executable)
    if (wrong) throw new CliError(`${wrong}; nothing was changed`)
    try {
      const outcome = await upgrade({
        root: (args.values.root as string | undefined) ?? '/',
        newExecutable: executable,
        timeoutMs: Number(timeout) * 1000,
        out: io.out,
      })
      if (outcome.kind === 'rolled-back') return ROLLED_BACK_EXIT
      if (outcome.kind === 'rollback-failed') return ROLLBACK_FAILED_EXIT
    } catch (error) {
      if (error instanceof UpgradeError || error instanceof ExecutableError) throw new CliError(error.message)
      throw error
    }
  },
}
