import { PROFILES } from '../../profiles/catalog.ts'
import { type Command, JSON_HELP, JSON_OPTION, noPositionals, printJson, printTable } from '../command.ts'

export const profilesListCommand: Command = {
  name: 'profiles list',
  summary: 'list the printer profiles (models) a printer record can name',
  usage: '[--json]',
  help: [JSON_HELP],
  options: { ...JSON_OPTION },
  run(args, io) {
    noPositionals(args)
    if (args.values.json) return printJson(io, PROFILES)
    printTable(io, ['PROFILE', 'NAME', 'COMMANDS', 'PAPER'], PROFILES.map((p) => [p.id, p.name, p.commandSet, p.paperWidths.map((w) => `${w} mm`).join(', ')]), 'No profiles.')
  },
}
