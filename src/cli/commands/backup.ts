// `printhub backup --out FILE` and `printhub restore FILE --data DIR [--force]`: a copy of a hub's
// data (while it runs) in one archive file, and that copy put back into a data directory. Both
// are brief commands: backup takes no lock (the hub goes on); restore refuses a directory a hub
// holds. `printhub upgrade` runs these two command lines as they are.
import { withExistingHubServices } from '../../hub/open-services.ts'
import { makeBackup } from '../../services/backup.ts'
import { restoreBackup } from '../../services/restore.ts'
import {
  type Command,
  CliError,
  DATA_HELP,
  DATA_OPTION,
  dataDirOf,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  positional,
  printJson,
  requireString,
  STORE_HELP,
  STORE_OPTION,
  storeUrlOf,
  THE_MACHINE,
} from '../command.ts'

/**
 * A cluster's data is PostgreSQL's (--store, or PRINTHUB_DATABASE_URL): backed up and restored with its own tools,
 * never said to be by an archive of a node's data directory, which holds none of it.
 */
function refuseCluster(args: Parameters<Command['run']>[0], io: Parameters<Command['run']>[1]): void {
  if (storeUrlOf(args, io) === undefined) return
  throw new CliError(
    "a cluster's data is in its PostgreSQL database: back it up and restore it with PostgreSQL's own tools " +
      '(pg_dump and pg_restore, or a base backup with WAL archiving; see docs/backup.md); ' +
      "a node's data directory holds only its lock and identity",
  )
}

const MB = 1024 * 1024
const size = (bytes: number) =>
  bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} kB`

export const backupCommand: Command = {
  name: 'backup',
  summary:
    "write a backup of the hub's data (its database, the built-in agent's key " +
    'and ledger) to one file, while the hub runs',
  usage: '--out FILE [--data DIR] [--json]',
  help: [
    '--out FILE        the archive to write (mode 0600; replaced only once the new one is complete)',
    DATA_HELP,
    "--scheduled       mark it as one of the hub's daily backups (the hub prunes those; used by the hub itself)",
    `${STORE_HELP}: refused, saying to use PostgreSQL's own tools (docs/backup.md)`,
    JSON_HELP,
    'The archive holds private key material and hashed secrets: keep it like a key.',
  ],
  options: { out: { type: 'string' }, scheduled: { type: 'boolean' }, ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    refuseCluster(args, io)
    const out = requireString(args, 'out')
    const dataDir = dataDirOf(args, io)
    const outcome = makeBackup({ dataDir, out, scheduled: args.values.scheduled === true })
    if (!outcome.ok) throw new CliError(outcome.message)
    // In the audit log of the hub whose data it copied.
    await withExistingHubServices(dataDir, (services) => services.audit.backupMade(THE_MACHINE, out))
    const { summary } = outcome
    if (args.values.json) return printJson(io, summary)
    const { jobs, printers, agents, apiKeys } = summary.counts
    io.out(
      `Backup written to ${summary.file} (${size(summary.bytes)}, ${summary.ms} ` +
        `ms): ${jobs} jobs, ${printers} printers, ${agents} agents, ${apiKeys} ` +
        `API keys of server ${summary.serverId}.`,
    )
    io.out(
      'It holds private key material and hashed secrets: keep it like a key. ' +
        'Restore it with: printhub restore FILE --data DIR',
    )
  },
}

export const restoreCommand: Command = {
  name: 'restore',
  summary: 'put a backup into a data directory (empty or new; --force replaces one, keeping it aside)',
  usage: 'FILE --data DIR [--force] [--json]',
  help: [
    'FILE              an archive written by printhub backup',
    '--data DIR        the data directory to restore into (required)',
    '--force           replace a directory that is not empty; the present one is kept as DIR.replaced-TIMESTAMP',
    `${STORE_HELP}: refused, saying to use PostgreSQL's own tools (docs/backup.md)`,
    JSON_HELP,
    'Refused while a hub runs on DIR: stop it first. The archive is checked whole before DIR is touched.',
  ],
  options: { force: { type: 'boolean' }, ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  run(args, io) {
    refuseCluster(args, io)
    const file = positional(args, 0, 'backup FILE', 1)
    // Never the default directory by accident: restore replaces what it is given.
    const dataDir = requireString(args, 'data')
    const outcome = restoreBackup({ file, dataDir, force: args.values.force === true })
    if (!outcome.ok) throw new CliError(outcome.message)
    const { summary } = outcome
    if (args.values.json) return printJson(io, summary)
    const { jobs, printers, agents, apiKeys } = summary.counts
    io.out(
      `Restored ${summary.file} (made ${summary.createdAt} by printhub ` +
        `${summary.printhubVersion}) into ${summary.dataDir}: ${jobs} jobs, ` +
        `${printers} printers, ${agents} agents, ${apiKeys} API keys of server ` +
        `${summary.serverId}.`,
    )
    if (summary.replacedDir)
      io.out(
        `The directory it replaced is kept as ${summary.replacedDir}; delete it ` +
          `once the restored hub runs as it should.`,
      )
    io.out(`Start the hub on it: printhub serve --data ${summary.dataDir}`)
  },
}
