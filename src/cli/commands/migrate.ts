import { DATABASE_URL_VARIABLE, parseStoreUrl, shownStoreUrl } from '../../domain/store-url.ts'
import { migrateStore } from '../../hub/postgres-store.ts'
import { type Command, JSON_HELP, JSON_OPTION, noPositionals, printJson, UsageError } from '../command.ts'

export const STORE_HELP =
  `--store URL       the cluster's PostgreSQL database, postgres://USER:PASSWORD@HOST:PORT/DATABASE ` +
  `(env ${DATABASE_URL_VARIABLE})`

export const migrateCommand: Command = {
  name: 'migrate',
  summary: "apply the cluster's PostgreSQL schema (every migration not yet applied, in one transaction)",
  usage: '--store URL [--json]',
  help: [STORE_HELP, JSON_HELP],
  options: { store: { type: 'string' }, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const given = (args.values.store as string | undefined) ?? io.env[DATABASE_URL_VARIABLE]
    if (given === undefined || given === '')
      throw new UsageError(`give the database with --store URL or ${DATABASE_URL_VARIABLE}`)
    const parsed = parseStoreUrl(given)
    if (!parsed.ok) throw new UsageError(`--store ${parsed.message}`)
    const migrated = await migrateStore(parsed.url)
    if (args.values.json) return printJson(io, migrated)
    const store = shownStoreUrl(parsed.url)
    if (migrated.applied.length === 0) return io.out(`${store} has schema ${migrated.to} already: nothing to do.`)
    io.out(`Migrated ${store} from schema ${migrated.from} to ${migrated.to}:`)
    for (const { version, description } of migrated.applied) io.out(`  ${version}  ${description}`)
  },
}
