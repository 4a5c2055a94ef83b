// `printhub settings show` and `settings set NAME VALUE`: the settings the dashboard changes, from
// the command line. A running hub takes a change within seconds; a setting its environment sets
// (PRINTHUB_*) stays as set there.
import { resolve } from 'node:path'
import { EDITABLE_SETTINGS, type EditableSetting } from '../../domain/settings.ts'
import { editableSettingsOf, resolveConfig } from '../../hub/config.ts'
import type { HubServices } from '../../services/hub-services.ts'
import { type LiveSettings, SETTING_NAMES as NAMES } from '../../services/live-settings.ts'
import {
  type Command,
  DATA_HELP,
  STORE_HELP,
  DATA_OPTION,
  STORE_OPTION,
  dataDirOf,
  type Io,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  type ParsedArgs,
  positional,
  printJson,
  THE_MACHINE,
  UsageError,
  withServices,
} from '../command.ts'

/** How a value reads on the command line: an empty backup directory is no scheduled backups. */
const shown = (setting: EditableSetting, value: string | number) =>
  setting === 'backupDir' && value === '' ? '(none: no scheduled backups)' : String(value)

/**
 * The settings as saved in the data directory over the defaults (the environment of this command does not pin them).
 */
function settingsOf(services: HubServices, args: ParsedArgs, io: Io): Promise<LiveSettings> {
  return services.liveSettings(editableSettingsOf(resolveConfig({ data: dataDirOf(args, io) }, {})))
}

export const settingsShowCommand: Command = {
  name: 'settings show',
  summary: "show the hub's settings as saved in the data directory",
  usage: '[--data DIR | --store URL] [--json]',
  help: [DATA_HELP, STORE_HELP, JSON_HELP],
  options: { ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const values = await withServices(args, io, async (services) => ({
      ...(await settingsOf(services, args, io)).values,
    }))
    if (args.values.json) return printJson(io, values)
    const width = Math.max(...Object.keys(NAMES).map((name) => name.length))
    for (const [name, setting] of Object.entries(NAMES))
      io.out(
        `${name.padEnd(width)}  ${shown(setting, values[setting])}  ` +
          `(${EDITABLE_SETTINGS[setting]} in the hub's environment wins)`,
      )
  },
}

export const settingsSetCommand: Command = {
  name: 'settings set',
  summary: 'change a setting of the hub (a running hub takes it within seconds)',
  usage: 'NAME VALUE [--data DIR | --store URL] [--json]',
  help: [
    `NAME              one of ${Object.keys(NAMES).join(', ')}`,
    'VALUE             a whole number; the server name; for backup-dir a ' +
      'directory (relative to here), or "" for no scheduled backups',
    DATA_HELP,
    STORE_HELP,
    JSON_HELP,
  ],
  options: { ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    const name = positional(args, 0, 'NAME and VALUE', 2)
    const text = positional(args, 1, 'NAME and VALUE', 2)
    if (!Object.hasOwn(NAMES, name))
      throw new UsageError(`there is no setting "${name}"; the settings are ${Object.keys(NAMES).join(', ')}`)
    const setting = NAMES[name]!
    // A directory is kept absolute: the hub does not start where this command runs.
    const value =
      setting === 'serverName'
        ? text
        : setting === 'backupDir'
          ? text === ''
            ? ''
            : resolve(text)
          : /^\d+$/.test(text)
            ? Number(text)
            : text
    const outcome = await withServices(args, io, async (services) =>
      (await settingsOf(services, args, io)).update({ [setting]: value }, THE_MACHINE),
    )
    if (!outcome.ok) throw new UsageError(`${name} ${outcome.message}`)
    if (args.values.json) return printJson(io, outcome.settings)
    io.out(
      `${name} is now ${shown(setting, outcome.settings[setting])}. A running ` +
        `hub takes it within seconds, unless its environment sets ` +
        `${EDITABLE_SETTINGS[setting]}.`,
    )
  },
}
