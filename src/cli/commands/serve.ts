import { resolveConfig } from '../../hub/config.ts'
import { isWildcardHost } from '../../services/lan.ts'
import { VERSION } from '../../domain/version.ts'
import type { InitResult } from '../../services/init.ts'
import { startHub } from '../../hub/start.ts'
import { hubOnTheLan } from '../../services/lan.ts'
import { DASHBOARD_PATH } from '../../protocol/admin-api.ts'
import { normalJitPolicy } from '../../platform/jit.ts'
import { DataDirLockError } from '../../platform/data-dir-lock.ts'
import type { Log, Logger } from '../../platform/log.ts'
import {
  CliError,
  type Command,
  DATA_HELP,
  DATA_OPTION,
  type Io,
  noPositionals,
  STORE_HELP,
  STORE_OPTION,
  storeUrlOf,
} from '../command.ts'
import { startClusterNode } from '../../hub/start-node.ts'
import { type HubConfig } from '../../hub/config.ts'
import { shownStoreUrl } from '../../domain/store-url.ts'
import { LOG_HELP, LOG_OPTIONS, openLog } from '../log-options.ts'

type FirstStart = Extract<InitResult, { created: true }>

/**
 * A node of a cluster, serving from its database (--store, or PRINTHUB_DATABASE_URL in its environment), never from
 * its data directory instead: a database of another schema is refused, naming both. Runs until a stop signal.
 */
async function serveNode(config: Readonly<HubConfig>, url: string, logs: Log, json: boolean): Promise<void> {
  const log = logs.for('hub')
  const node = await startClusterNode(config, url, { logger: logs, firstWork: normalJitPolicy }).catch(
    (error: unknown) => {
      throw error instanceof DataDirLockError ? new CliError(error.message) : error
    },
  )
  const stopSignal = new Promise<string>((resolve) => {
    for (const name of ['SIGTERM', 'SIGINT'] as const) process.once(name, () => resolve(name))
  })
  const listening =
    `printhub ${VERSION} node ${node.nodeId} listening on ${node.url}, ` +
    `data in ${shownStoreUrl(url)} (node-local files in ${config.dataDir})`
  const event = (name: string, msg: string, fields: object = {}) =>
    log.info(msg, undefined, { event: { event: name, ...fields }, always: true })
  const lanUrl = hubOnTheLan(config.serverName, config.host, node.port, config.tls ? 'https' : 'http').url
  const dashboardUrl = `${lanUrl}${DASHBOARD_PATH.slice(1)}/`
  const setupUrl = node.setupToken && `${dashboardUrl}setup#${node.setupToken}`
  if (json)
    event('listening', listening, {
      version: VERSION,
      url: node.url,
      nodeId: node.nodeId,
      serverId: node.serverId,
      dashboardUrl,
      setupUrl: setupUrl ?? null,
    })
  else {
    // The cluster's first owner: through the link this node made (one for the cluster while it is valid), or
    // `printhub admin set-password --store URL`.
    if (setupUrl)
      log.info(`Make the dashboard's first owner account (the link works once, for 24 hours): ${setupUrl}`, undefined, {
        always: true,
      })
    else log.info(`Dashboard: ${dashboardUrl}`)
    log.info(listening, undefined, { always: true })
  }
  const signal = await stopSignal
  event('stopping', `${signal}: stopping`, { signal })
  await node.stop()
  event('stopped', 'stopped')
}

/** The test job of the first start: to the demo printer, once (its idempotency key). */
function testJob(url: string, init: FirstStart) {
  return {
    url: `${url}/v1/projects/${init.projectId}/jobs`,
    authorization: `Bearer ${init.apiKey}`,
    body: {
      printerId: init.printerId,
      idempotencyKey: 'hello-1',
      document: {
        width: 80,
        sections: [
          { type: 'text', value: 'Hello from printhub', align: 'center', bold: true },
          { type: 'feed', lines: 3 },
          { type: 'cut' },
        ],
      },
    },
  }
}

/** `text` as one word for sh, in single quotes. */
const shellQuoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

/**
 * The line a new user runs to see the hub take a job, with what the quick start installs: Node.js
 * (18 or later, whose fetch it uses); a fresh Debian has no curl.
 */
export function testJobNode(url: string, init: FirstStart): string {
  const job = testJob(url, init)
  const headers = { authorization: job.authorization, 'content-type': 'application/json' }
  const script =
    `fetch(${JSON.stringify(job.url)},{method:"POST",headers:${JSON.stringify(headers)},` +
    `body:JSON.stringify(${JSON.stringify(job.body)})}).then(async(r)=>console.log(r.status,await ` +
    `r.text()))`
  return `node -e ${shellQuoted(script)}`
}

/** The same with curl. */
export function testJobCurl(url: string, init: FirstStart): string {
  const job = testJob(url, init)
  return (
    `curl -X POST ${job.url} -H ` +
    `${shellQuoted(`Authorization: ${job.authorization}`)} -H 'Content-Type: ` +
    `application/json' -d ${shellQuoted(JSON.stringify(job.body))}`
  )
}

/** A hub that is up: where, with what data, which server, and what a first start made. */
interface Listening {
  url: string
  dataDir: string
  host: string
  serverId: string
  firstStart: FirstStart | undefined
  dashboardUrl: string
  setupToken: string | undefined
}

/**
 * What serve says: in JSON, events through its log (one object per line, for scripts); in text,
 * the first start's lines as they are (to copy), the rest through the log.
 */
function output(io: Io, log: Logger, json: boolean) {
  // Whatever the log's level: whoever started the hub waits for these.
  const event = (name: string, msg: string, fields: object = {}) =>
    log.info(msg, undefined, { event: { event: name, ...fields }, always: true })
  return {
    listening({ url, dataDir, host, serverId, firstStart, dashboardUrl, setupToken }: Listening) {
      const setupUrl = setupToken && `${dashboardUrl}setup#${setupToken}`
      const everywhere = isWildcardHost(host) ? ' (and on every address of this machine)' : ''
      const listening = `printhub ${VERSION} listening on ${url}${everywhere}, data in ${dataDir}`
      // In JSON, one event says it all (the first start's key included, for the script that started it).
      if (json)
        return event('listening', listening, {
          version: VERSION,
          url,
          dataDir,
          serverId,
          firstStart: firstStart ?? null,
          dashboardUrl,
          setupUrl: setupUrl ?? null,
        })
      if (firstStart) {
        io.out(
          `First start: created project ${firstStart.projectId} and a virtual demo printer "${firstStart.printerId}".`,
        )
        io.out(`API key (shown only now; keep it secret): ${firstStart.apiKey}`)
        io.out('Submit a test job (with Node.js 18 or later):')
        io.out(`  ${testJobNode(url, firstStart)}`)
        io.out('or with curl (on Debian: sudo apt-get install curl):')
        io.out(`  ${testJobCurl(url, firstStart)}`)
      }
      if (setupUrl) io.out(`Make the dashboard's first owner account (the link works once, for 24 hours): ${setupUrl}`)
      else log.info(`Dashboard: ${dashboardUrl}`)
      // Last, so whoever waits for this line has everything above it.
      log.info(listening, undefined, { always: true })
    },
    stopping: (signal: string) => event('stopping', `${signal}: stopping`, { signal }),
    stopped: () => event('stopped', 'stopped'),
  }
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the hub (initialises an empty data directory first)',
  usage:
    '[--host H] [--port P] [--data DIR] [--tls-cert FILE --tls-key FILE] ' +
    '[--log-format text|json] [--log-level L] [--json]',
  help: [
    '--host H          address to listen on (env PRINTHUB_HOST, default 0.0.0.0: the whole LAN)',
    '--port P          port to listen on (env PRINTHUB_PORT, default 8080; 0 picks a free one)',
    DATA_HELP,
    `${STORE_HELP}: serve as a node of the cluster on it (docs/cluster.md)`,
    '--tls-cert FILE   serve HTTPS with this certificate chain (PEM; env PRINTHUB_TLS_CERT), with --tls-key',
    '--tls-key FILE    its private key (PEM; env PRINTHUB_TLS_KEY). Without them: plain HTTP, the LAN default',
    ...LOG_HELP,
    '--json            --log-format json, with the events of older versions ' +
      "as they were: listening (with the first start's key), request, delivery, " +
      'stopping, stopped',
    'Environment: PRINTHUB_SERVER_ID, PRINTHUB_SERVER_NAME, PRINTHUB_SERVER_VERSION,',
    '  PRINTHUB_CHALLENGE_TTL_SECONDS (5-300), PRINTHUB_MAX_OPEN_JOBS (unfinished jobs per project),',
    '  PRINTHUB_HEARTBEAT_INTERVAL_MS, PRINTHUB_HEARTBEAT_TIMEOUT_MS, PRINTHUB_ACK_TIMEOUT_MS,',
    '  PRINTHUB_RETRY_INITIAL_MS, PRINTHUB_RETRY_MAX_MS, PRINTHUB_STATUS_POLL_MS (see docs/operations.md).',
  ],
  options: {
    host: { type: 'string' },
    port: { type: 'string' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    ...DATA_OPTION,
    ...STORE_OPTION,
    ...LOG_OPTIONS,
    json: { type: 'boolean' },
  },
  async run(args, io) {
    noPositionals(args)
    const storeUrl = storeUrlOf(args, io)
    const config = resolveConfig(
      {
        host: args.values.host as string | undefined,
        port: args.values.port as string | undefined,
        data: args.values.data as string | undefined,
        tlsCert: args.values['tls-cert'] as string | undefined,
        tlsKey: args.values['tls-key'] as string | undefined,
      },
      io.env,
    )
    const logs = openLog(args, io, args.values.json === true)
    if (storeUrl !== undefined) return serveNode(config, storeUrl, logs, logs.settings.format === 'json')
    const out = output(io, logs.for('hub'), logs.settings.format === 'json')
    const hub = await startHub(config, { logger: logs, firstWork: normalJitPolicy }).catch((error: unknown) => {
      // Another hub or agent has the data directory: said in one line, naming it.
      throw error instanceof DataDirLockError ? new CliError(error.message) : error
    })
    // Listen for the stop signals before saying we are up: whoever reads that may stop us at once.
    const stopSignal = new Promise<string>((resolve) => {
      for (const name of ['SIGTERM', 'SIGINT'] as const) process.once(name, () => resolve(name))
    })
    const lanUrl = hubOnTheLan(config.serverName, config.host, hub.port, config.tls ? 'https' : 'http').url
    const dashboardUrl = `${lanUrl}${DASHBOARD_PATH.slice(1)}/`
    out.listening({
      url: hub.url,
      dataDir: config.dataDir,
      host: config.host,
      serverId: hub.serverId,
      firstStart: hub.init.created ? hub.init : undefined,
      dashboardUrl,
      setupToken: hub.setupToken,
    })
    const signal = await stopSignal
    out.stopping(signal)
    await hub.stop()
    out.stopped()
  },
}
