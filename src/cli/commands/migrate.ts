import { DATABASE_URL_VARIABLE, shownStoreUrl } from '../../domain/store-url.ts'
import { migrateStore } from '../../hub/postgres-store.ts'
import {
  type Command,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  printJson,
  STORE_HELP,
  STORE_OPTION,
  storeUrlOf,
  UsageError,
} from '../command.ts'

export const migrateCommand: Command = {
  name: 'migrate',
  summary: "apply the cluster's PostgreSQL schema (every migration not yet applied, in one transaction)",
  usage: '--store URL [--json]',
  help: [STORE_HELP, JSON_HELP],
  options: { ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const url = storeUrlOf(args, io)
    if (url === undefined) throw new UsageError(`give the database with --store URL or ${DATABASE_URL_VARIABLE}`)
    const migrated = await migrateStore(url)
    if (args.values.json) return printJson(io, migrated)
    const store = shownStoreUrl(url)
    if (migrated.applied.length === 0) return io.out(`${store} has schema ${migrated.to} already: nothing to do.`)
    io.out(`Migrated ${store} from schema ${migrated.from} to ${migrated.to}:`)
    for (const { version, description } of migrated.applied) io.out(`  ${version}  ${description}`)
  },
}
