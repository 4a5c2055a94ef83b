// The doctor's check of the hub's port: free for the hub, or held by this hub; otherwise by whom
// (another printhub, by its server ID, or another program).
import { SERVER_ID_HEADER } from '../api/routes/health.ts'
import type { StoreInspection } from '../store/inspection.ts'
import type { Finding } from './finding.ts'
import { listenerOf } from './port-listener.ts'

/** Where the hub listens, and which hub it is (the doctor's options). */
interface HubPort {
  host: string
  port: number
  dataDir: string
  serverId?: string
}

export async function port(
  { host, port: portNumber, dataDir, serverId }: HubPort,
  database: StoreInspection | undefined,
): Promise<Finding> {
  const check = 'port'
  const where = `${host}:${portNumber}`
  try {
    const server = Bun.listen({ hostname: host, port: portNumber, socket: { data() {} } })
    server.stop(true)
    return { check, verdict: 'ok', detail: `${where} is free for the hub` }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EADDRINUSE')
      return {
        check,
        verdict: 'fail',
        detail:
          `the hub cannot listen on ${where} (${code ?? (error as Error).message}): ` +
          `is the address one of this machine's, and the port one this ` +
          `user may use?`,
      }
  }
  // Taken: by this hub (fine), by another hub, or by another program (the hub cannot start).
  const answer = await printhubAnswer(host, portNumber)
  const own = serverId ?? storedServerId(database)
  if (answer && answer.serverId !== undefined && answer.serverId === own)
    return { check, verdict: 'ok', detail: `printhub is running on ${where}` }
  const holder = listenerOf(portNumber)
  const pid = holder ? `, PID ${holder.pid}` : ''
  if (answer) {
    const theirs =
      answer.serverId === undefined
        ? `printhub that does not say its server ID (an older version${pid})`
        : `printhub (server ID ${answer.serverId}${pid})`
    const ours = own === undefined ? 'which has no server ID yet' : `server ID ${own}`
    return {
      check,
      verdict: 'fail',
      detail:
        `${where} is held by another ${theirs}, not by the hub of ${dataDir} ` +
        `(${ours}); which data directory that one uses is unknown. Stop it, or ` +
        `give this hub another port (--port).`,
    }
  }
  const program = holder ? `another program (${holder.name}${pid})` : 'another program'
  return {
    check,
    verdict: 'fail',
    detail:
      `${where} is used by ${program}: the hub cannot start there. Stop that ` +
      `program or choose another port (--port).`,
  }
}

function storedServerId(database: StoreInspection | undefined): string | undefined {
  try {
    return database?.serverId()
  } catch {
    // A damaged database is reported by its own check.
    return undefined
  }
}

/** Whether a printhub answers /health on the port, and which (the server ID it sends). */
async function printhubAnswer(host: string, portNumber: number): Promise<{ serverId: string | undefined } | undefined> {
  const address = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
  // A hub serving HTTPS (serve --tls-cert) answers on the same port; its certificate names the LAN, not this loopback.
  for (const scheme of ['http', 'https']) {
    try {
      const url = `${scheme}://${address.includes(':') ? `[${address}]` : address}:${portNumber}/health`
      const response = await fetch(url, {
        redirect: 'manual',
        signal: AbortSignal.timeout(2_000),
        tls: { rejectUnauthorized: false },
      })
      const body = (await response.json()) as { service?: string } | null
      if (response.ok && body?.service === 'printhub')
        return { serverId: response.headers.get(SERVER_ID_HEADER) ?? undefined }
    } catch {
      // Not an answer of ours in this scheme.
    }
  }
  return undefined
}
