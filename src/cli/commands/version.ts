import { BUILD_COMMIT, VERSION } from '../../domain/version.ts'
import { SERVICE_JIT_ENVIRONMENT } from '../../platform/jit.ts'
import { STORE_SCHEMA_VERSION } from '../../hub/open-services.ts'
import { type Command, JSON_HELP, JSON_OPTION, noPositionals, printJson } from '../command.ts'

export const versionCommand: Command = {
  name: 'version',
  summary: 'print the version and the commit it was built from',
  usage: '[--json]',
  help: [JSON_HELP],
  options: { ...JSON_OPTION },
  run(args, io) {
    noPositionals(args)
    // runtimeOptions: what its service's unit starts it with (`printhub upgrade` writes them there).
    if (args.values.json)
      return printJson(io, {
        version: VERSION,
        commit: BUILD_COMMIT,
        schema: STORE_SCHEMA_VERSION,
        runtimeOptions: SERVICE_JIT_ENVIRONMENT,
      })
    io.out(`printhub ${VERSION} (${BUILD_COMMIT})`)
  },
}
