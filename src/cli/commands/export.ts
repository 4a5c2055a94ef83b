// `printhub export --to URL [--data DIR]`: a hub's data moved from its data directory into a cluster's PostgreSQL
// database (docs/cluster.md, "Moving a hub into a cluster"), every row as it is, in one transaction.
import { DATABASE_URL_VARIABLE } from '../../domain/store-url.ts'
import { exportToPostgres } from '../../hub/export-store.ts'
import { DataDirLockError } from '../../platform/data-dir-lock.ts'
import {
  CliError,
  type Command,
  DATA_HELP,
  DATA_OPTION,
  dataDirOf,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  printJson,
  UsageError,
} from '../command.ts'

export const exportCommand: Command = {
  name: 'export',
  summary: "move a hub's data from its data directory into a cluster's PostgreSQL database (empty, migrated)",
  usage: '--to URL [--data DIR] [--json]',
  help: [
    "--to URL          the cluster's database (postgres://USER:PASSWORD@HOST:PORT/DATABASE), of this printhub's",
    '                  schema (printhub migrate) and holding no project yet; its password is never shown',
    DATA_HELP,
    JSON_HELP,
    'Stop the hub first: the data directory is locked while its rows are copied, in one transaction.',
  ],
  options: { to: { type: 'string' }, ...DATA_OPTION, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const to = args.values.to as string | undefined
    if (to === undefined) throw new UsageError(`give the database with --to URL (${DATABASE_URL_VARIABLE} is not read)`)
    const dataDir = dataDirOf(args, io)
    const exported = await exportToPostgres(dataDir, to).catch((error: unknown) => {
      throw error instanceof DataDirLockError ? new CliError(error.message) : error
    })
    if (args.values.json) return printJson(io, exported)
    const rows = Object.values(exported.tables).reduce((sum, n) => sum + n, 0)
    io.out(
      `Moved ${rows} rows of ${Object.keys(exported.tables).length} tables into ${exported.to} (${exported.ms} ms).`,
    )
    io.out(`Start the cluster's nodes with it: printhub serve --store ${exported.to.replace(':***@', ':PASSWORD@')}`)
  },
}
