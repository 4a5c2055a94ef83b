import { formatRequestLog, type RequestLog } from '../../http/app.ts'
import { resolveConfig } from '../../hub/config.ts'
import { isWildcardHost } from '../../services/lan.ts'
import { VERSION } from '../../domain/version.ts'
import type { InitResult } from '../../services/init.ts'
import { startHub } from '../../hub/start.ts'
import { hubOnTheLan } from '../../services/lan.ts'
import { DASHBOARD_PATH } from '../../protocol/admin-api.ts'
import { DataDirLockError } from '../../platform/data-dir-lock.ts'
import { CliError, type Command, DATA_HELP, DATA_OPTION, type Io, noPositionals } from '../command.ts'

type FirstStart = Extract<InitResult, { created: true }>

/** The curl line a new user runs to see the hub take a job. */
export function testJobCurl(url: string, init: FirstStart): string {
  const body = JSON.stringify({
    printerId: init.printerId,
    idempotencyKey: 'hello-1',
    document: { width: 80, sections: [{ type: 'text', value: 'Hello from printhub', align: 'center', bold: true }, { type: 'feed', lines: 3 }, { type: 'cut' }] },
  })
  return `curl -X POST ${url}/v1/projects/${init.projectId}/jobs -H 'Authorization: Bearer ${init.apiKey}' -H 'Content-Type: application/json' -d '${body}'`
}

/** What serve prints: lines for people, or one JSON object per line for scripts. */
function output(io: Io, json: boolean) {
  const event = (name: string, fields: object) => io.out(JSON.stringify({ event: name, ...fields }))
  const request: RequestLog = json ? (entry) => event('request', entry) : (entry) => io.out(formatRequestLog(entry))
  return {
    request,
    /** What the built-in agent and the dispatcher have to say (connections, refused jobs). */
    delivery: (message: string) => (json ? event('delivery', { message }) : io.out(message)),
    listening(url: string, dataDir: string, host: string, serverId: string, firstStart: FirstStart | undefined, dashboardUrl: string, setupToken: string | undefined) {
      const setupUrl = setupToken && `${dashboardUrl}setup#${setupToken}`
      if (json) return event('listening', { version: VERSION, url, dataDir, serverId, firstStart: firstStart ?? null, dashboardUrl, setupUrl: setupUrl ?? null })
      if (firstStart) {
        io.out(`First start: created project ${firstStart.projectId} and a virtual demo printer "${firstStart.printerId}".`)
        io.out(`API key (shown only now; keep it secret): ${firstStart.apiKey}`)
        io.out('Submit a test job:')
        io.out(`  ${testJobCurl(url, firstStart)}`)
      }
      if (setupUrl) io.out(`Set the dashboard's admin password (the link works once, for 24 hours): ${setupUrl}`)
      else io.out(`Dashboard: ${dashboardUrl}`)
      // Last, so whoever waits for this line has everything above it.
      const everywhere = isWildcardHost(host) ? ' (and on every address of this machine)' : ''
      io.out(`printhub ${VERSION} listening on ${url}${everywhere}, data in ${dataDir}`)
    },
    stopping: (signal: string) => (json ? event('stopping', { signal }) : io.out(`${signal}: stopping`)),
    stopped: () => (json ? event('stopped', {}) : io.out('stopped')),
  }
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the hub (initialises an empty data directory first)',
  usage: '[--host H] [--port P] [--data DIR] [--json]',
  help: [
    '--host H          address to listen on (env PRINTHUB_HOST, default 0.0.0.0: the whole LAN)',
    '--port P          port to listen on (env PRINTHUB_PORT, default 8080; 0 picks a free one)',
    DATA_HELP,
    '--json            print events as JSON lines: listening (with the first start\'s key), request, delivery, stopping, stopped',
    'Environment: PRINTHUB_SERVER_ID, PRINTHUB_SERVER_NAME, PRINTHUB_SERVER_VERSION,',
    '  PRINTHUB_CHALLENGE_TTL_SECONDS (5-300), PRINTHUB_MAX_OPEN_JOBS (unfinished jobs per project),',
    '  PRINTHUB_HEARTBEAT_INTERVAL_MS, PRINTHUB_HEARTBEAT_TIMEOUT_MS, PRINTHUB_ACK_TIMEOUT_MS,',
    '  PRINTHUB_RETRY_INITIAL_MS, PRINTHUB_RETRY_MAX_MS, PRINTHUB_STATUS_POLL_MS (see the README).',
  ],
  options: { host: { type: 'string' }, port: { type: 'string' }, ...DATA_OPTION, json: { type: 'boolean' } },
  async run(args, io) {
    noPositionals(args)
    const config = resolveConfig({ host: args.values.host as string | undefined, port: args.values.port as string | undefined, data: args.values.data as string | undefined }, io.env)
    const out = output(io, args.values.json === true)
    const hub = await startHub(config, { log: out.request, events: out.delivery }).catch((error: unknown) => {
      // Another hub or agent has the data directory: said in one line, naming it.
      throw error instanceof DataDirLockError ? new CliError(error.message) : error
    })
    // Listen for the stop signals before saying we are up: whoever reads that may stop us at once.
    const stopSignal = new Promise<string>((resolve) => {
      for (const name of ['SIGTERM', 'SIGINT'] as const) process.once(name, () => resolve(name))
    })
    const dashboardUrl = `${hubOnTheLan(config.serverName, config.host, hub.port).url}${DASHBOARD_PATH.slice(1)}/`
    out.listening(hub.url, config.dataDir, config.host, hub.serverId, hub.init.created ? hub.init : undefined, dashboardUrl, hub.setupToken)
    const signal = await stopSignal
    out.stopping(signal)
    await hub.stop()
    out.stopped()
  },
}
