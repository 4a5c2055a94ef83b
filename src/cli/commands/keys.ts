import { API_KEY_SCOPES } from '../../protocol/api-key.ts'
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
  requireString,
  THE_MACHINE,
  UsageError,
  withProject,
  withServices,
} from '../command.ts'

export const keysCreateCommand: Command = {
  name: 'keys create',
  summary: 'create a project API key (the secret is shown once)',
  usage: '--project ID [--scope S]... [--name N] [--data DIR | --store URL] [--json]',
  help: [
    '--project ID      the project the key belongs to',
    `--scope S         ${API_KEY_SCOPES.join(', ')}; repeat for several (default: all)`,
    '--name N          a label for people',
    DATA_HELP,
    STORE_HELP,
    JSON_HELP,
  ],
  options: {
    project: { type: 'string' },
    scope: { type: 'string', multiple: true },
    name: { type: 'string' },
    ...DATA_OPTION,
    ...STORE_OPTION,
    ...JSON_OPTION,
  },
  async run(args, io) {
    noPositionals(args)
    const scopes = (args.values.scope as string[] | undefined) ?? [...API_KEY_SCOPES]
    const name = (args.values.name as string | undefined) ?? null
    const projectId = requireString(args, 'project')
    const made = await withServices(args, io, (services) =>
      services.keys.create(THE_MACHINE, projectId, { scopes, name }),
    )
    if (made.kind === 'invalid')
      throw new UsageError(`unknown scope "${made.scope}"; scopes are ${API_KEY_SCOPES.join(', ')}`)
    if (made.kind === 'unknown_project')
      throw new CliError(`there is no project ${projectId} (see printhub projects list)`)
    const { key, secret } = made
    if (args.values.json) return printJson(io, { ...key, apiKey: secret })
    io.out(`Created key ${key.id} (${key.scopes.join(', ')}) for project ${key.projectId}.`)
    io.out(`API key (shown only now; keep it secret): ${secret}`)
  },
}

export const keysListCommand: Command = {
  name: 'keys list',
  summary: "list a project's API keys (never their secrets)",
  usage: '--project ID [--data DIR | --store URL] [--json]',
  help: ['--project ID      the project', DATA_HELP, STORE_HELP, JSON_HELP],
  options: { project: { type: 'string' }, ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const keys = await withProject(args, io, (services, projectId) => services.keys.list(projectId))
    printList(io, args, keys, {
      columns: {
        ID: (k) => k.id,
        PREFIX: (k) => k.keyPrefix,
        SCOPES: (k) => k.scopes.join(','),
        NAME: (k) => k.name,
        CREATED: (k) => k.createdAt,
        REVOKED: (k) => k.revokedAt,
      },
      empty: 'No keys.',
    })
  },
}

export const keysRevokeCommand: Command = {
  name: 'keys revoke',
  summary: 'revoke an API key at once',
  usage: 'KEY_ID [--data DIR | --store URL] [--json]',
  help: [DATA_HELP, STORE_HELP, JSON_HELP],
  options: { ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    const keyId = positional(args, 0, 'KEY_ID', 1)
    const outcome = await withServices(args, io, (services) => services.keys.revoke(THE_MACHINE, keyId))
    if (outcome.kind === 'unknown') throw new CliError(`there is no API key ${keyId}`)
    if (args.values.json) return printJson(io, { id: keyId, revoked: true })
    io.out(`Revoked key ${keyId}.`)
  },
}
