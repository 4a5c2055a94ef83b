// The technician's interface: `printhub COMMAND [ARGS]`. Each command lives in commands/.
import { ConfigError } from '../hub/config.ts'
import { DatabaseTooNewError, NoDatabaseError } from '../sqlite/database.ts'
import { CliError, type Command, type Io, parse } from './command.ts'

/**
 * Every command by its name, in the order of the overview, loaded when it is run: a command's
 * modules (the hub, the renderer, the installer, the emulator) are read only by the commands that
 * use them, which keeps the start of each one short. test/cli/cli.test.ts checks each loads under
 * its own name.
 */
export const COMMAND_LOADERS: Readonly<Record<string, () => Promise<Command>>> = {
  serve: async () => (await import('./commands/serve.ts')).serveCommand,
  init: async () => (await import('./commands/init.ts')).initCommand,
  migrate: async () => (await import('./commands/migrate.ts')).migrateCommand,
  export: async () => (await import('./commands/export.ts')).exportCommand,
  'projects create': async () => (await import('./commands/projects.ts')).projectsCreateCommand,
  'projects list': async () => (await import('./commands/projects.ts')).projectsListCommand,
  'keys create': async () => (await import('./commands/keys.ts')).keysCreateCommand,
  'keys list': async () => (await import('./commands/keys.ts')).keysListCommand,
  'keys revoke': async () => (await import('./commands/keys.ts')).keysRevokeCommand,
  'pairing-codes create': async () => (await import('./commands/pairing-codes.ts')).pairingCodesCreateCommand,
  'admin set-password': async () => (await import('./commands/admin.ts')).adminSetPasswordCommand,
  'admin create-token': async () => (await import('./commands/admin.ts')).adminTokenCreateCommand,
  'users add': async () => (await import('./commands/users.ts')).usersAddCommand,
  'users list': async () => (await import('./commands/users.ts')).usersListCommand,
  'users disable': async () => (await import('./commands/users.ts')).usersDisableCommand,
  'users enable': async () => (await import('./commands/users.ts')).usersEnableCommand,
  'settings show': async () => (await import('./commands/settings.ts')).settingsShowCommand,
  'settings set': async () => (await import('./commands/settings.ts')).settingsSetCommand,
  backup: async () => (await import('./commands/backup.ts')).backupCommand,
  restore: async () => (await import('./commands/backup.ts')).restoreCommand,
  'agents list': async () => (await import('./commands/agents.ts')).agentsListCommand,
  'agents revoke': async () => (await import('./commands/agents.ts')).agentsRevokeCommand,
  'destinations create': async () => (await import('./commands/destinations.ts')).destinationsCreateCommand,
  'destinations set': async () => (await import('./commands/destinations.ts')).destinationsSetCommand,
  'destinations list': async () => (await import('./commands/destinations.ts')).destinationsListCommand,
  'destinations delete': async () => (await import('./commands/destinations.ts')).destinationsDeleteCommand,
  'printers add': async () => (await import('./commands/printers.ts')).printersAddCommand,
  'printers assign': async () => (await import('./commands/printers.ts')).printersAssignCommand,
  'printers adopt': async () => (await import('./commands/printers.ts')).printersAdoptCommand,
  'printers list': async () => (await import('./commands/printers.ts')).printersListCommand,
  'printers remove': async () => (await import('./commands/printers.ts')).printersRemoveCommand,
  'printers detect': async () => (await import('./commands/printer-checks.ts')).printersDetectCommand,
  'printers probe': async () => (await import('./commands/printer-checks.ts')).printersProbeCommand,
  'printers test': async () => (await import('./commands/printer-checks.ts')).printersTestCommand,
  'profiles list': async () => (await import('./commands/profiles.ts')).profilesListCommand,
  'profiles show': async () => (await import('./commands/profiles.ts')).profilesShowCommand,
  render: async () => (await import('./commands/render.ts')).renderCommand,
  emulate: async () => (await import('./commands/emulate.ts')).emulateCommand,
  'jobs list': async () => (await import('./commands/jobs.ts')).jobsListCommand,
  'jobs show': async () => (await import('./commands/jobs.ts')).jobsShowCommand,
  'jobs cancel': async () => (await import('./commands/jobs.ts')).jobsCancelCommand,
  agent: async () => (await import('./commands/agent.ts')).agentCommand,
  install: async () => (await import('./commands/install.ts')).installCommand,
  upgrade: async () => (await import('./commands/install.ts')).upgradeCommand,
  uninstall: async () => (await import('./commands/install.ts')).uninstallCommand,
  doctor: async () => (await import('./commands/doctor.ts')).doctorCommand,
  version: async () => (await import('./commands/version.ts')).versionCommand,
}

export const COMMAND_NAMES: readonly string[] = Object.keys(COMMAND_LOADERS)

/** Every command, loaded (for the overview, which shows each one's summary). */
export function loadCommands(): Promise<Command[]> {
  return Promise.all(COMMAND_NAMES.map((name) => COMMAND_LOADERS[name]!()))
}

async function overview(): Promise<string> {
  const commands = await loadCommands()
  const width = Math.max(...commands.map((c) => c.name.length))
  return [
    'Usage: printhub COMMAND [OPTIONS]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run "printhub COMMAND --help" for the options of a command.',
  ].join('\n')
}

function commandHelp(command: Command): string {
  return [
    `Usage: printhub ${command.name} ${command.usage}`.trimEnd(),
    '',
    `${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.`,
    ...(command.help.length ? ['', ...command.help.map((line) => `  ${line}`)] : []),
  ].join('\n')
}

/** Finds the command named by the leading words of argv: `keys create ...` before `keys`. */
async function findCommand(argv: string[]): Promise<{ command: Command; rest: string[] } | undefined> {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ')
    if (Object.hasOwn(COMMAND_LOADERS, name))
      return { command: await COMMAND_LOADERS[name]!(), rest: argv.slice(words) }
  }
  return undefined
}

/** Runs the CLI and returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    io.out(await overview())
    return argv.length === 0 ? 2 : 0
  }
  if (argv[0] === '--version') argv = ['version']
  const found = await findCommand(argv)
  if (!found) {
    const group = COMMAND_NAMES.filter((name) => name.startsWith(`${argv[0]} `))
    io.err(
      group.length ? `printhub ${argv[0]}: say which: ${group.join(', ')}` : `printhub: unknown command "${argv[0]}"`,
    )
    io.err('Run "printhub --help" for the list of commands.')
    return 2
  }
  const { command, rest } = found
  try {
    const args = parse(command, rest)
    if (args.values.help) {
      io.out(commandHelp(command))
      return 0
    }
    return (await command.run(args, io)) ?? 0
  } catch (error) {
    if (error instanceof CliError) {
      io.err(`printhub ${command.name}: ${error.message}`)
      if (error.exitCode === 2) io.err(`Run "printhub ${command.name} --help" for usage.`)
      return error.exitCode
    }
    if (error instanceof ConfigError || error instanceof NoDatabaseError || error instanceof DatabaseTooNewError) {
      io.err(`printhub ${command.name}: ${error.message}`)
      return 1
    }
    throw error
  }
}
