// `printhub export --to URL [--data DIR]`: a hub's data moved from its data directory into a cluster's PostgreSQL
// database (docs/cluster.md, "Moving a hub into a cluster"), every row as it is, in one transaction; and back,
// `printhub export --from URL [--data DIR]`: a cluster's data into a new data directory.
import { DATABASE_URL_VARIABLE } from '../../domain/store-url.ts'
import { exportToPostgres, importFromPostgres } from '../../hub/export-store.ts'
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
  summary:
    "move a hub's data into a cluster's PostgreSQL database (--to), or a cluster's into a data directory (--from)",
  usage: '(--to URL | --from URL) [--data DIR] [--json]',
  help: [
    "--to URL          the cluster's database (postgres://USER:PASSWORD@HOST:PORT/DATABASE), of this printhub's",
    '                  schema (printhub migrate) and holding no project yet; its password is never shown',
    "--from URL        the cluster's database to copy into the data directory, which holds no hub yet (a new one)",
    DATA_HELP,
    JSON_HELP,
    'Stop the hub (--to) or every node (--from) first: the rows are copied in one transaction.',
  ],
  options: { to: { type: 'string' }, from: { type: 'string' }, ...DATA_OPTION, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const to = args.values.to as string | undefined
    const from = args.values.from as string | undefined
    if ((to === undefined) === (from === undefined))
      throw new UsageError(`give the database with --to URL or --from URL (${DATABASE_URL_VARIABLE} is not read)`)
    const dataDir = dataDirOf(args, io)
    const exported = await (to !== undefined
      ? exportToPostgres(dataDir, to)
      : importFromPostgres(dataDir, from!)
    ).catch((error: unknown) => {
      throw error instanceof DataDirLockError ? new CliError(error.message) : error
    })
    if (args.values.json) return printJson(io, exported)
    const rows = Object.values(exported.tables).reduce((sum, n) => sum + n, 0)
    const tables = Object.keys(exported.tables).length
    if (exported.to !== undefined) {
      io.out(`Moved ${rows} rows of ${tables} tables into ${exported.to} (${exported.ms} ms).`)
      io.out(`Start the cluster's nodes with it: printhub serve --store ${exported.to.replace(':***@', ':PASSWORD@')}`)
    } else {
      io.out(`Copied ${rows} rows of ${tables} tables from ${exported.from} into ${dataDir} (${exported.ms} ms).`)
      io.out(`Start a hub on it: printhub serve --data ${dataDir}`)
    }
  },
}
