import { VERSION } from '../../hub/config.ts'
import { type Command, noPositionals } from '../command.ts'

export const versionCommand: Command = {
  name: 'version',
  summary: 'print the version',
  usage: '',
  help: [],
  options: {},
  run(args, io) {
    noPositionals(args)
    io.out(`printhub ${VERSION}`)
  },
}
