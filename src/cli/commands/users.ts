// `printhub users …`: the dashboard's accounts on the machine, as an owner makes them in the
// dashboard (services/accounts.ts): add one with a role (its password from standard input), list
// them, disable one at once (its sessions and tokens stop working) or enable it again.
import { ADMIN_ROLES, type AdminRole } from '../../protocol/admin-api.ts'
import {
  CliError,
  type Command,
  DATA_HELP,
  STORE_HELP,
  DATA_OPTION,
  STORE_OPTION,
  JSON_HELP,
  JSON_OPTION,
  positional,
  printJson,
  printList,
  THE_MACHINE,
  UsageError,
  withServices,
} from '../command.ts'
import { namedAccount, readSecretLine } from './admin.ts'

const ROLE_HELP =
  '--role ROLE       owner (everything), technician (printers, agents, ' +
  'keys, settings; not accounts) or staff (printers and jobs: ' +
  'cancel, reprint)'

export const usersAddCommand: Command = {
  name: 'users add',
  summary: 'add a dashboard account with a role (its password read from standard input)',
  usage: 'NAME --role owner|technician|staff [--data DIR | --store URL] [--json]',
  help: [
    ROLE_HELP,
    'The password is read from the first line of standard input (typed ' +
      'without echo at a terminal); at least 10 characters.',
    DATA_HELP,
    STORE_HELP,
    JSON_HELP,
  ],
  options: { role: { type: 'string' }, ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    const name = positional(args, 0, 'NAME', 1)
    const role = args.values.role as string | undefined
    if (!ADMIN_ROLES.includes(role as AdminRole))
      throw new UsageError(`--role must be one of ${ADMIN_ROLES.join(', ')}`)
    const password = await readSecretLine(io, `Password for ${name}:`)
    const added = await withServices(args, io, (services) =>
      services.accounts.add(THE_MACHINE, { name, role: role as AdminRole, password }),
    )
    if (added.kind === 'taken') throw new CliError(`there is an account ${name} already`)
    if (added.kind === 'invalid') throw new CliError(`${added.path}: ${added.message}`)
    if (args.values.json) return printJson(io, added.user)
    io.out(`Added ${added.user.name} (${added.user.role}).`)
  },
}

export const usersListCommand: Command = {
  name: 'users list',
  summary: 'list the dashboard accounts',
  usage: '[--data DIR | --store URL] [--json]',
  help: [DATA_HELP, STORE_HELP, JSON_HELP],
  options: { ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    const users = await withServices(args, io, (services) => services.accounts.list())
    printList(io, args, users, {
      columns: {
        NAME: (u) => u.name,
        ROLE: (u) => u.role,
        STATE: (u) => (u.disabled ? 'disabled' : 'active'),
        CREATED: (u) => u.createdAt,
      },
      empty: 'No accounts yet (printhub admin set-password makes the first owner).',
    })
  },
}

function switchCommand(name: 'users disable' | 'users enable', disabled: boolean): Command {
  return {
    name,
    summary: disabled
      ? 'disable an account at once: its sessions end and its tokens stop working'
      : 'let a disabled account sign in again',
    usage: 'NAME [--data DIR | --store URL] [--json]',
    help: [DATA_HELP, STORE_HELP, JSON_HELP],
    options: { ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
    async run(args, io) {
      const userName = positional(args, 0, 'NAME', 1)
      const outcome = await withServices(args, io, async (services) =>
        services.accounts.change(THE_MACHINE, (await namedAccount(services, userName)).id, { disabled }),
      )
      if (outcome.kind === 'last_owner')
        throw new CliError(`${outcome.user.name} is the only owner who can sign in: make another owner first`)
      if (outcome.kind !== 'changed') throw new CliError(`there is no account ${userName} (see printhub users list)`)
      const user = outcome.user
      if (args.values.json) return printJson(io, user)
      io.out(`${user.name} is ${user.disabled ? 'disabled' : 'enabled'}.`)
    },
  }
}

export const usersDisableCommand = switchCommand('users disable', true)
export const usersEnableCommand = switchCommand('users enable', false)
