import {
  CliError,
  type Command,
  DATA_HELP,
  STORE_HELP,
  DATA_OPTION,
  STORE_OPTION,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  positional,
  printJson,
  printList,
  THE_MACHINE,
  withServices,
} from '../command.ts'

export const agentsListCommand: Command = {
  name: 'agents list',
  summary: 'list the agents paired with this hub (the built-in one first)',
  usage: '[--data DIR | --store URL] [--json]',
  help: [DATA_HELP, STORE_HELP, JSON_HELP],
  options: { ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const agents = await withServices(args, io, (services) => services.agents.list())
    printList(io, args, agents, {
      columns: {
        ID: (a) => a.id,
        NAME: (a) => (a.builtin ? `${a.name} (built-in)` : a.name),
        PLATFORM: (a) => a.platform,
        VERSION: (a) => a.version,
        PAIRED: (a) => a.pairedAt,
        'LAST SEEN': (a) => a.lastSeenAt,
        REVOKED: (a) => a.revokedAt,
      },
      empty: 'No agents.',
    })
  },
}

export const agentsRevokeCommand: Command = {
  name: 'agents revoke',
  summary: 'revoke an agent: its connection ends and it can no longer authenticate',
  usage: 'AGENT_ID [--data DIR | --store URL] [--json]',
  help: [DATA_HELP, STORE_HELP, JSON_HELP],
  options: { ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    const id = positional(args, 0, 'AGENT_ID', 1)
    const outcome = await withServices(args, io, (services) => services.agents.revoke(THE_MACHINE, id))
    if (outcome.kind === 'unknown') throw new CliError(`there is no agent ${id} (see printhub agents list)`)
    if (outcome.kind === 'builtin')
      throw new CliError('the built-in agent is part of the hub and cannot be revoked; remove its printers instead')
    if (outcome.kind === 'already_revoked') throw new CliError(`agent ${id} is already revoked`)
    if (args.values.json) return printJson(io, { id, revoked: true })
    io.out(
      `Revoked agent ${id}. A running hub ends its connection within a second; ` +
        `pair it again with a new code to use it.`,
    )
  },
}
