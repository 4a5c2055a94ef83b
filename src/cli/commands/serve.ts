import { resolveConfig, VERSION } from '../../hub/config.ts'
import type { InitResult } from '../../hub/init.ts'
import { startHub } from '../../hub/start.ts'
import { type Command, DATA_HELP, DATA_OPTION, noPositionals } from '../command.ts'

/** The curl line a new user runs to see the hub take a job. */
export function testJobCurl(url: string, init: Extract<InitResult, { created: true }>): string {
  const body = JSON.stringify({
    printerId: init.printerId,
    idempotencyKey: 'hello-1',
    document: { width: 80, sections: [{ type: 'text', value: 'Hello from printhub', align: 'center', bold: true }, { type: 'feed', lines: 3 }, { type: 'cut' }] },
  })
  return `curl -X POST ${url}/v1/projects/${init.projectId}/jobs -H 'Authorization: Bearer ${init.apiKey}' -H 'Content-Type: application/json' -d '${body}'`
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the hub (initialises an empty data directory first)',
  usage: '[--host H] [--port P] [--data DIR]',
  help: [
    '--host H          address to listen on (env PRINTHUB_HOST, default 0.0.0.0: the whole LAN)',
    '--port P          port to listen on (env PRINTHUB_PORT, default 8080; 0 picks a free one)',
    DATA_HELP,
    'Environment: PRINTHUB_SERVER_ID, PRINTHUB_SERVER_NAME, PRINTHUB_SERVER_VERSION,',
    '  PRINTHUB_CHALLENGE_TTL_SECONDS (5-300), PRINTHUB_MAX_OPEN_JOBS (unfinished jobs per project).',
  ],
  options: { host: { type: 'string' }, port: { type: 'string' }, ...DATA_OPTION },
  async run(args, io) {
    noPositionals(args)
    const config = resolveConfig({ host: args.values.host as string | undefined, port: args.values.port as string | undefined, data: args.values.data as string | undefined }, io.env)
    const hub = await startHub(config, { log: io.out })
    if (hub.init.created) {
      io.out(`First start: created project ${hub.init.projectId} and a virtual test printer "${hub.init.printerId}".`)
      io.out(`API key (shown only now; keep it secret): ${hub.init.apiKey}`)
      io.out('Submit a test job:')
      io.out(`  ${testJobCurl(hub.url, hub.init)}`)
    }
    // Last, so whoever waits for this line has everything above it.
    const everywhere = config.host === '0.0.0.0' || config.host === '::' ? ' (and on every address of this machine)' : ''
    io.out(`printhub ${VERSION} listening on ${hub.url}${everywhere}, data in ${config.dataDir}`)
    const signal = await new Promise<string>((resolve) => {
      for (const name of ['SIGTERM', 'SIGINT'] as const) process.once(name, () => resolve(name))
    })
    io.out(`${signal}: stopping`)
    await hub.stop()
    io.out('stopped')
  },
}
