// What a CLI command is, and the helpers every command shares.
import { DATABASE_URL_VARIABLE, parseStoreUrl } from '../domain/store-url.ts'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { printableInLine } from '../domain/printable.ts'
import { DEFAULTS, resolveDataDir } from '../hub/config.ts'
import { withHubServices } from '../hub/open-services.ts'
import type { HubServices } from '../services/hub-services.ts'

/** Who makes the changes the CLI's commands make, for the audit log: the hub's own machine. */
export { THE_MACHINE } from '../services/actor.ts'

export type Options = NonNullable<ParseArgsConfig['options']>

export interface Command {
  /** Words that select the command, e.g. `keys create`. */
  name: string
  summary: string
  /** The argument synopsis after the name, e.g. `--project ID [--json]`. */
  usage: string
  /** One line per option or environment variable, for --help. */
  help: string[]
  options: Options
  run(args: ParsedArgs, io: Io): Promise<number | void> | number | void
}

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>
  positionals: string[]
}

export interface Io {
  out: (line: string) => void
  err: (line: string) => void
  env: Record<string, string | undefined>
}

/** A command that could not do its work: the message is shown, exit code 1. */
export class CliError extends Error {
  readonly exitCode: number = 1
}

/** A mistake in how the command was called: shown with a hint to --help, exit code 2. */
export class UsageError extends CliError {
  override readonly exitCode = 2
}

export const DATA_OPTION = { data: { type: 'string' } } as const satisfies Options
export const JSON_OPTION = { json: { type: 'boolean' } } as const satisfies Options
export const DATA_HELP = `--data DIR        data directory (env PRINTHUB_DATA_DIR, default ${DEFAULTS.dataDir})`
/** The cluster's database, for the commands that work on the hub's data (withServices). */
export const STORE_OPTION = { store: { type: 'string' } } as const satisfies Options
export const STORE_HELP =
  `--store URL       the cluster's PostgreSQL database, postgres://USER:PASSWORD@HOST:PORT/DATABASE ` +
  `(env ${DATABASE_URL_VARIABLE})`
export const JSON_HELP = '--json            print JSON for scripts'

export function parse(command: Command, argv: string[]): ParsedArgs {
  try {
    return parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    }) as ParsedArgs
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

export function dataDirOf(args: ParsedArgs, io: Io): string {
  return resolveDataDir({ data: args.values.data as string | undefined }, io.env)
}

export function requireString(args: ParsedArgs, name: string): string {
  const value = args.values[name]
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`)
  return value
}

export function positional(args: ParsedArgs, index: number, name: string, count: number): string {
  if (args.positionals.length !== count)
    throw new UsageError(count === 1 ? `expected one ${name}` : `expected ${count} arguments`)
  return args.positionals[index]!
}

export function noPositionals(args: ParsedArgs): void {
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument "${args.positionals[0]}"`)
}

/**
 * Opens the services over the data directory's store (creating it only when asked), runs `work`, and closes them:
 * the command changes the hub's data through the same operations as the running hub.
 */
export function withServices<T>(args: ParsedArgs, io: Io, work: (services: HubServices) => T, create = false): T {
  return withHubServices({ dataDir: dataDirOf(args, io), create, storeUrl: storeUrlOf(args, io) }, work)
}

/** The cluster's database the command is given (--store, else PRINTHUB_DATABASE_URL); none: the data directory's. */
export function storeUrlOf(args: ParsedArgs, io: Io): string | undefined {
  const given = (args.values.store as string | undefined) ?? io.env[DATABASE_URL_VARIABLE]
  if (given === undefined || given === '') return undefined
  const parsed = parseStoreUrl(given)
  if (!parsed.ok) throw new UsageError(`--store ${parsed.message}`)
  return parsed.url
}

/** Like withServices, for commands on one project (--project ID), which must exist. */
export function withProject<T>(
  args: ParsedArgs,
  io: Io,
  work: (services: HubServices, projectId: string) => T,
): Promise<Awaited<T>> {
  const projectId = requireString(args, 'project')
  return withServices(args, io, async (services): Promise<Awaited<T>> => {
    if (!(await services.projects.get(projectId)))
      throw new CliError(`there is no project ${projectId} (see printhub projects list)`)
    return await work(services, projectId)
  })
}

export function printJson(io: Io, value: unknown): void {
  io.out(JSON.stringify(value, null, 2))
}

/** The table of a list: each column's heading and its cell of a record, and what is said when there is none. */
export interface ListTable<T> {
  columns: Record<string, (record: T) => string | number | null>
  empty: string
}

/** Records as JSON with --json, else as a plain text table with a header row and aligned columns. */
export function printList<T>(io: Io, args: ParsedArgs, records: T[], { columns, empty }: ListTable<T>): void {
  if (args.values.json) return printJson(io, records)
  if (records.length === 0) return io.out(empty)
  const headers = Object.keys(columns)
  const rows = records.map((record) =>
    Object.values(columns).map((cell) => printableInLine(String(cell(record) ?? '-'))),
  )
  const cells = [headers, ...rows]
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)))
  for (const row of cells)
    io.out(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
}
