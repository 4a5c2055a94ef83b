import { PROFILES } from '../../profiles/catalog.ts'
import { type Command, JSON_HELP, JSON_OPTION, noPositionals, printList } from '../command.ts'

export const profilesListCommand: Command = {
  name: 'profiles list',
  summary: 'list the printer profiles (models) a printer record can name',
  usage: '[--json]',
  help: [JSON_HELP],
  options: { ...JSON_OPTION },
  run(args, io) {
    noPositionals(args)
    printList(io, args, [...PROFILES], { PROFILE: (p) => p.id, NAME: (p) => p.name, COMMANDS: (p) => p.commandSet, PAPER: (p) => p.paperWidths.map((w) => `${w} mm`).join(', ') }, 'No profiles.')
  },
}
