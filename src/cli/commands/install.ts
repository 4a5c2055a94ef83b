import { DEFAULTS, resolveConfig } from '../../hub/config.ts'
import { DEFAULT_INSTALL_DATA_DIR } from '../../install/files.ts'
import { InstallError, install, isCompiled, uninstall } from '../../install/install.ts'
import { CliError, type Command, noPositionals } from '../command.ts'

const ROOT_HELP = '--root DIR        write the files under DIR instead of / (to stage an image; commands still run)'

/** Checked before anything is touched. */
function requireInstallable(): void {
  if (!isCompiled()) throw new CliError('install and uninstall work on the compiled executable, not the sources: build it with "npm run build" and run dist/printhub-linux-arm64.')
  if (process.getuid?.() !== 0) throw new CliError('this needs root: run it with sudo')
}

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
    const config = resolveConfig({ host: args.values.host as string | undefined, port: args.values.port as string | undefined, data: (args.values.data as string | undefined) ?? DEFAULT_INSTALL_DATA_DIR }, {})
    try {
      await install({ dataDir: config.dataDir, host: config.host, port: config.port, root: (args.values.root as string | undefined) ?? '/', executable: process.execPath, maxOpenJobsPerProject: config.maxOpenJobsPerProject, out: io.out })
    } catch (error) {
      if (error instanceof InstallError) throw new CliError(error.message)
      throw error
    }
  },
}

export const uninstallCommand: Command = {
  name: 'uninstall',
  summary: 'stop and remove the service, its unit, udev rule, user and executable; keep the data unless --purge',
  usage: '[--data DIR] [--purge] [--root DIR]',
  help: [`--data DIR        data directory (default ${DEFAULT_INSTALL_DATA_DIR})`, '--purge           remove the data directory too: every job, key and printer', ROOT_HELP],
  options: { data: { type: 'string' }, purge: { type: 'boolean' }, root: { type: 'string' } },
  run(args, io) {
    noPositionals(args)
    requireInstallable()
    try {
      uninstall({ dataDir: (args.values.data as string | undefined) ?? DEFAULT_INSTALL_DATA_DIR, root: (args.values.root as string | undefined) ?? '/', purge: args.values.purge === true, out: io.out })
    } catch (error) {
      if (error instanceof InstallError) throw new CliError(error.message)
      throw error
    }
  },
}
