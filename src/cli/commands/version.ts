import { VERSION } from '../../hub/config.ts'
import { type Command, JSON_HELP, JSON_OPTION, noPositionals, printJson } from '../command.ts'

export const versionCommand: Command = {
  name: 'version',
  summary: 'print the version',
  usage: '[--json]',
  help: [JSON_HELP],
  options: { ...JSON_OPTION },
  run(args, io) {
    noPositionals(args)
    if (args.values.json) return printJson(io, { version: VERSION })
    io.out(`printhub ${VERSION}`)
  },
}
