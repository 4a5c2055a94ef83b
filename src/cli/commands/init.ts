import {
  type Command,
  DATA_HELP,
  STORE_HELP,
  DATA_OPTION,
  STORE_OPTION,
  dataDirOf,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  printJson,
  storeUrlOf,
  withServices,
} from '../command.ts'
import { shownStoreUrl } from '../../domain/store-url.ts'

export const initCommand: Command = {
  name: 'init',
  summary: "create the database (or a cluster's first data), a default project, an API key and a demo printer",
  usage: '[--data DIR | --store URL] [--json]',
  help: [DATA_HELP, STORE_HELP, JSON_HELP],
  options: { ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const result = await withServices(args, io, (services) => services.initialize(dataDirOf(args, io)), true)
    if (args.values.json) return printJson(io, result)
    const storeUrl = storeUrlOf(args, io)
    // A cluster's database is named without its password.
    const dataDir = storeUrl === undefined ? dataDirOf(args, io) : shownStoreUrl(storeUrl)
    if (!result.created)
      return io.out(`${dataDir} is already initialised (project ${result.projectId}); nothing was created.`)
    io.out(`Initialised ${dataDir}.`)
    io.out(`Project: ${result.projectId}`)
    io.out(`API key (shown only now; keep it secret): ${result.apiKey}`)
    io.out(`Demo printer: ${result.printerId} (virtual)`)
  },
}
