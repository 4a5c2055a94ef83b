// The technician's interface: `printhub COMMAND [ARGS]`. Each command lives in commands/.
import { ConfigError } from '../hub/config.ts'
import { DatabaseTooNewError, NoDatabaseError } from '../sqlite/database.ts'
import { CliError, type Command, type Io, parse } from './command.ts'
import { adminSetPasswordCommand, adminTokenCreateCommand } from './commands/admin.ts'
import { agentCommand } from './commands/agent.ts'
import { backupCommand, restoreCommand } from './commands/backup.ts'
import { agentsListCommand, agentsRevokeCommand } from './commands/agents.ts'
import { doctorCommand } from './commands/doctor.ts'
import { initCommand } from './commands/init.ts'
import { installCommand, uninstallCommand, upgradeCommand } from './commands/install.ts'
import { jobsCancelCommand, jobsListCommand, jobsShowCommand } from './commands/jobs.ts'
import { keysCreateCommand, keysListCommand, keysRevokeCommand } from './commands/keys.ts'
import { pairingCodesCreateCommand } from './commands/pairing-codes.ts'
import { printersAddCommand, printersAssignCommand, printersListCommand, printersRemoveCommand } from './commands/printers.ts'
import { printersDetectCommand, printersProbeCommand, printersTestCommand } from './commands/printer-checks.ts'
import { profilesListCommand, profilesShowCommand } from './commands/profiles.ts'
import { renderCommand } from './commands/render.ts'
import { emulateCommand } from './commands/emulate.ts'
import { projectsCreateCommand, projectsListCommand } from './commands/projects.ts'
import { serveCommand } from './commands/serve.ts'
import { settingsSetCommand, settingsShowCommand } from './commands/settings.ts'
import { versionCommand } from './commands/version.ts'

export const COMMANDS: readonly Command[] = [
  serveCommand,
  initCommand,
  projectsCreateCommand,
  projectsListCommand,
  keysCreateCommand,
  keysListCommand,
  keysRevokeCommand,
  pairingCodesCreateCommand,
  adminSetPasswordCommand,
  adminTokenCreateCommand,
  settingsShowCommand,
  settingsSetCommand,
  backupCommand,
  restoreCommand,
  agentsListCommand,
  agentsRevokeCommand,
  printersAddCommand,
  printersAssignCommand,
  printersListCommand,
  printersRemoveCommand,
  printersDetectCommand,
  printersProbeCommand,
  printersTestCommand,
  profilesListCommand,
  profilesShowCommand,
  renderCommand,
  emulateCommand,
  jobsListCommand,
  jobsShowCommand,
  jobsCancelCommand,
  agentCommand,
  installCommand,
  upgradeCommand,
  uninstallCommand,
  doctorCommand,
  versionCommand,
]

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length))
  return [
    'Usage: printhub COMMAND [OPTIONS]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run "printhub COMMAND --help" for the options of a command.',
  ].join('\n')
}

function commandHelp(command: Command): string {
  return [`Usage: printhub ${command.name} ${command.usage}`.trimEnd(), '', `${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.`, ...(command.help.length ? ['', ...command.help.map((line) => `  ${line}`)] : [])].join('\n')
}

/** Finds the command named by the leading words of argv: `keys create ...` before `keys`. */
function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ')
    const command = COMMANDS.find((c) => c.name === name)
    if (command) return { command, rest: argv.slice(words) }
  }
  return undefined
}

/** Runs the CLI and returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    io.out(overview())
    return argv.length === 0 ? 2 : 0
  }
  if (argv[0] === '--version') argv = ['version']
  const found = findCommand(argv)
  if (!found) {
    const group = COMMANDS.filter((c) => c.name.startsWith(`${argv[0]} `)).map((c) => c.name)
    io.err(group.length ? `printhub ${argv[0]}: say which: ${group.join(', ')}` : `printhub: unknown command "${argv[0]}"`)
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
