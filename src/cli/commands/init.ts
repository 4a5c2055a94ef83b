import { resolveDataDir } from '../../hub/config.ts'
import { initialize } from '../../hub/init.ts'
import { Store } from '../../store/store.ts'
import { DEFAULTS } from '../../hub/config.ts'
import { type Command, DATA_HELP, DATA_OPTION, JSON_HELP, JSON_OPTION, noPositionals, printJson } from '../command.ts'

export const initCommand: Command = {
  name: 'init',
  summary: 'create the database, a default project, an API key and a test printer',
  usage: '[--data DIR] [--json]',
  help: [DATA_HELP, JSON_HELP],
  options: { ...DATA_OPTION, ...JSON_OPTION },
  run(args, io) {
    noPositionals(args)
    const dataDir = resolveDataDir({ data: args.values.data as string | undefined }, io.env)
    const store = Store.open({ dataDir, create: true, maxOpenJobsPerProject: DEFAULTS.maxOpenJobsPerProject })
    try {
      const result = initialize(store)
      if (args.values.json) return printJson(io, result)
      if (!result.created) return io.out(`${dataDir} is already initialised (project ${result.projectId}); nothing was created.`)
      io.out(`Initialised ${dataDir}.`)
      io.out(`Project: ${result.projectId}`)
      io.out(`API key (shown only now; keep it secret): ${result.apiKey}`)
      io.out(`Test printer: ${result.printerId} (virtual)`)
    } finally {
      store.close()
    }
  },
}
