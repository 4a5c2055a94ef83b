// The log options `serve` and `agent` share: its format and level, from flags or the environment,
// and whether stdout is the journal (systemd), which the log then writes for.
import { isJournal, Log, logSettingsFrom } from '../platform/log.ts'
import { type Io, type Options, type ParsedArgs, UsageError } from './command.ts'

export const LOG_OPTIONS = {
  'log-format': { type: 'string' },
  'log-level': { type: 'string' },
} as const satisfies Options

export const LOG_HELP = [
  '--log-format F    text (default: one line per entry, fields as ' +
    'key=value) or json (one object per line) (env PRINTHUB_LOG_FORMAT)',
  '--log-level L     debug, info (default), warn or error: entries below it are left out (env PRINTHUB_LOG_LEVEL)',
]

/**
 * The command's log, written to stdout. `json`: the older `serve --json`, the same as
 * `--log-format json` with serve's events exactly as they always were.
 */
export function openLog(args: ParsedArgs, io: Io, json = false): Log {
  const format = args.values['log-format'] as string | undefined
  if (json && format !== undefined && format !== 'json')
    throw new UsageError(`--json is --log-format json; it cannot go with --log-format ${format}`)
  const settings = logSettingsFrom(
    { format: json ? 'json' : format, level: args.values['log-level'] as string | undefined },
    io.env,
  )
  if (!settings.ok) throw new UsageError(settings.problem)
  return new Log({ format: settings.format, level: settings.level, journal: isJournal(io.env), events: json }, io.out)
}
