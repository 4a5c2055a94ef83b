import { passwordProblem, setAdminPassword } from '../../services/admin-password.ts'
import { type Command, DATA_HELP, DATA_OPTION, type Io, JSON_HELP, JSON_OPTION, noPositionals, printJson, requireString, UsageError, withStore } from '../command.ts'

/** One line from standard input; typed without echo when it is a terminal. Never an argument: those show in `ps`. */
async function readSecretLine(io: Io, prompt: string): Promise<string> {
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

export const adminSetPasswordCommand: Command = {
  name: 'admin set-password',
  summary: "set the dashboard's admin password (read from standard input); signs out every browser",
  usage: '[--data DIR]',
  help: ['The password is read from the first line of standard input (typed without echo at a terminal):', '  printhub admin set-password < file, or type it when asked.', 'At least 10 characters.', DATA_HELP],
  options: { ...DATA_OPTION },
  async run(args, io) {
    noPositionals(args)
    const password = await readSecretLine(io, 'New admin password:')
    const problem = passwordProblem(password)
    if (problem) throw new UsageError(problem)
    const ended = await withStore(args, io, async (store) => {
      await setAdminPassword(store, password)
      return store.adminSessions.revokeAll()
    })
    io.out(`The admin password is set${ended ? `; ${ended} signed-in browser${ended === 1 ? ' was' : 's were'} signed out` : ''}. Sign in at http://<hub>:8080/dashboard/.`)
  },
}

export const adminTokenCreateCommand: Command = {
  name: 'admin create-token',
  summary: 'create an admin token, for scripts that use the admin API (shown once)',
  usage: '--name N [--data DIR] [--json]',
  help: ['--name N          what the token is for', DATA_HELP, JSON_HELP],
  options: { name: { type: 'string' }, ...DATA_OPTION, ...JSON_OPTION },
  run(args, io) {
    noPositionals(args)
    const name = requireString(args, 'name')
    const created = withStore(args, io, (store) => store.adminTokens.create(name))
    if (args.values.json) return printJson(io, { ...created.token, secret: created.secret })
    io.out(`Admin token ${created.token.id} (shown only now; keep it secret): ${created.secret}`)
  },
}
