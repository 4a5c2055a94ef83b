import { ADMIN_ROLES } from '../../protocol/admin-api.ts'
import type { User } from '../../domain/accounts.ts'
import { FIRST_OWNER_NAME, passwordProblem } from '../../services/accounts.ts'
import type { HubServices } from '../../services/hub-services.ts'
import {
  CliError,
  type Command,
  DATA_HELP,
  STORE_HELP,
  DATA_OPTION,
  STORE_OPTION,
  type Io,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  printJson,
  requireString,
  THE_MACHINE,
  UsageError,
  withServices,
} from '../command.ts'

/** One line from standard input; typed without echo when it is a terminal. Never an argument: those show in `ps`. */
export async function readSecretLine(io: Io, prompt: string): Promise<string> {
  const terminal = process.stdin.isTTY
  if (terminal) {
    io.err(prompt)
    Bun.spawnSync(['stty', '-echo'], { stdin: 'inherit' })
  }
  try {
    for await (const line of console) return line
    return ''
  } finally {
    if (terminal) Bun.spawnSync(['stty', 'echo'], { stdin: 'inherit' })
  }
}

/** The account `--user NAME` names; without it, the hub's only account. */
export async function namedAccount({ accounts }: HubServices, name: string | undefined): Promise<User> {
  if (name !== undefined) {
    const found = await accounts.named(name)
    if (!found) throw new CliError(`there is no account ${name} (see printhub users list)`)
    return found
  }
  const [only, ...others] = await accounts.list()
  if (!only) throw new CliError('there is no account yet: make the first owner with printhub admin set-password')
  if (others.length > 0) throw new UsageError('the hub has several accounts: name one with --user NAME')
  return only
}

export const adminSetPasswordCommand: Command = {
  name: 'admin set-password',
  summary:
    "set an account's dashboard password (read from standard input), or make " +
    'the first owner; signs that account out everywhere',
  usage: '[--user NAME] [--data DIR | --store URL]',
  help: [
    '--user NAME       the account (default: the hub\'s only account; on a hub without one, a new owner "admin")',
    'The password is read from the first line of standard input (typed without echo at a terminal):',
    '  printhub admin set-password < file, or type it when asked.',
    'At least 10 characters. It also ends a sign-in lockout of the account.',
    DATA_HELP,
    STORE_HELP,
  ],
  options: { user: { type: 'string' }, ...DATA_OPTION, ...STORE_OPTION },
  async run(args, io) {
    noPositionals(args)
    const password = await readSecretLine(io, 'New password:')
    const problem = passwordProblem(password)
    if (problem) throw new UsageError(problem)
    const done = await withServices(args, io, async (services) => {
      if (!(await services.accounts.any())) {
        const name = (args.values.user as string | undefined) ?? FIRST_OWNER_NAME
        const added = await services.accounts.add(THE_MACHINE, { name, role: 'owner', password })
        if (added.kind !== 'added')
          throw new CliError(added.kind === 'taken' ? 'that account exists already' : added.message)
        return { user: added.user, ended: 0 }
      }
      const user = await namedAccount(services, args.values.user as string | undefined)
      // Signed out everywhere: whoever knew the old password is out.
      return (await services.accounts.setPassword(THE_MACHINE, user.id, { password }))!
    })
    const signedOut = done.ended
      ? `; ${done.ended} signed-in browser${done.ended === 1 ? ' was' : 's were'} signed out`
      : ''
    io.out(
      `The password of ${done.user.name} (${done.user.role}) is ` +
        `set${signedOut}. Sign in at http://<hub>:8080/dashboard/.`,
    )
  },
}

export const adminTokenCreateCommand: Command = {
  name: 'admin create-token',
  summary: "create an admin token for scripts that use the admin API, with an account's role (shown once)",
  usage: '--user NAME --name N [--data DIR | --store URL] [--json]',
  help: [
    "--user NAME       the account whose role the token carries (default: the hub's only account)",
    '--name N          what the token is for',
    `Roles: ${ADMIN_ROLES.join(', ')}.`,
    DATA_HELP,
    STORE_HELP,
    `${JSON_HELP} (the secret as "token")`,
  ],
  options: { user: { type: 'string' }, name: { type: 'string' }, ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const name = requireString(args, 'name')
    const created = await withServices(args, io, async (services) => {
      const user = await namedAccount(services, args.values.user as string | undefined)
      return { ...(await services.access.createToken(THE_MACHINE, user, name)), user }
    })
    if (args.values.json)
      return printJson(io, {
        ...created.token,
        user: created.user.name,
        role: created.user.role,
        token: created.secret,
        secret: created.secret,
      })
    io.out(
      `Admin token ${created.token.id} for ${created.user.name} ` +
        `(${created.user.role}; shown only now, keep it secret): ` +
        `${created.secret}`,
    )
  },
}
