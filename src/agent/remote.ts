// A remote agent: paired with a hub by a one-time code, then serving the printers configured in
// its own data directory (`printhub printers add --local`), over a WebSocket to the hub.
import type { Logger } from '../platform/log.ts'
import { needsAttention } from '../domain/printer-state.ts'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { lockDataDir } from '../platform/data-dir-lock.ts'
import { DISCOVERY_PATHS, type DiscoveryDocument, discoveryRule } from '../protocol/discovery.ts'
import { MAX_AUTH_FRAME_BYTES } from '../protocol/limits.ts'
import { pairingResponseRule } from '../protocol/pairing.ts'
import { validate } from '../protocol/rules.ts'
import { confinementOf } from '../transports/confine.ts'
import { VirtualPrinters } from '../transports/virtual.ts'
import { Agent } from './agent.ts'
import { AgentKey, KEY_FILE } from './identity.ts'
import { Ledger } from './ledger.ts'
import { websocketConnector } from './websocket.ts'

export const DEFAULT_AGENT_DATA_DIR = './agent-data'
/** Discovery and pairing answers are small; a hub that sends more is not one. */
const MAX_ANSWER_BYTES = 65_536
const HTTP_TIMEOUT_MS = 20_000

const SETTINGS = {
  server: 'server_url',
  gateway: 'gateway_url',
  serverId: 'server_id',
  agentId: 'agent_id',
  keyId: 'key_id',
} as const

export class PairingError extends Error {}

export interface Pairing {
  server: string
  gateway: string
  serverId: string
  agentId: string
  keyId: string
}

export function pairingOf(ledger: Ledger): Pairing | undefined {
  const values = Object.fromEntries(Object.entries(SETTINGS).map(([name, key]) => [name, ledger.setting(key)]))
  return Object.values(values).every((v) => v !== undefined) ? (values as unknown as Pairing) : undefined
}

/** An HTTP answer as JSON, or why there is none (unreachable, too large, not JSON). */
type JsonAnswer = { ok: true; status: number; body: unknown } | { ok: false; problem: string }

async function fetchJson(url: string, init: RequestInit = {}): Promise<JsonAnswer> {
  let response: Response
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) })
  } catch (error) {
    return { ok: false, problem: `cannot reach ${url}: ${(error as Error).message}` }
  }
  const text = await response.text()
  if (text.length > MAX_ANSWER_BYTES)
    return { ok: false, problem: `${url} answered more than ${MAX_ANSWER_BYTES} bytes` }
  try {
    return { ok: true, status: response.status, body: JSON.parse(text) }
  } catch {
    return { ok: false, problem: `${url} did not answer JSON (HTTP ${response.status})` }
  }
}

const isSuccess = (status: number) => status >= 200 && status < 300

/**
 * The service's base URL as OpenPrinter agents take it (reference 1.3): http or https, a host, no
 * user name or fragment; the query is dropped and trailing slashes trimmed from the path, which
 * is kept (a service mounted under a prefix is discovered below it).
 */
export function serviceBase(server: string): URL {
  let base: URL
  try {
    base = new URL(server.trim())
  } catch {
    throw new PairingError(`--server must be the service's URL, like http://192.168.1.10:8080 (got "${server}")`)
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new PairingError('--server must be an http:// or https:// URL')
  if (base.username || base.password || base.hash)
    throw new PairingError('--server must not carry a user name, password or #fragment')
  base.search = ''
  base.pathname = base.pathname.replace(/\/+$/, '') || '/'
  return base
}

/** Where the service at `base` answers discovery at `path`: below the base's own path. */
function discoveryUrl(base: URL, path: string): string {
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}${path}`
}

/** Asks each discovery path in turn; the first valid document wins, whatever the service is called. */
async function discover(base: URL): Promise<DiscoveryDocument> {
  const tried: string[] = []
  for (const path of DISCOVERY_PATHS) {
    const url = discoveryUrl(base, path)
    const answer = await fetchJson(url)
    if (!answer.ok) {
      tried.push(answer.problem)
      continue
    }
    const document = validate(discoveryRule, answer.body)
    if (isSuccess(answer.status) && document.ok) return document.value
    tried.push(`${url} answered HTTP ${answer.status}${document.ok ? '' : ', not a discovery document'}`)
  }
  throw new PairingError(`${discoveryUrl(base, '')} is not an OpenPrinter service: ${tried.join('; ')}`)
}

/**
 * An endpoint from discovery (reference 1.3): an absolute path replaces the base URL's path, an
 * absolute URL stands as it is; an https service's endpoint may not fall back to plain http or ws.
 */
function resolveEndpoint(base: URL, endpoint: string, what: string): URL {
  const resolved = new URL(endpoint, base.origin)
  if (resolved.username || resolved.password || resolved.hash)
    throw new PairingError(`the service's ${what} endpoint carries a user name or a #fragment`)
  if (base.protocol === 'https:' && (resolved.protocol === 'http:' || resolved.protocol === 'ws:'))
    throw new PairingError(`the service is https but its ${what} endpoint is not: ${resolved.href}`)
  return resolved
}

/**
 * Discovers the service, makes a key pair (the private key stays in `dataDir`, mode 0600), and
 * pairs with the one-time code. On any failure the new key is deleted and nothing is recorded.
 */
export async function pairAgent(options: {
  server: string
  code: string
  name: string
  dataDir: string
  version: string
}): Promise<Pairing> {
  const base = serviceBase(options.server)
  const discovery = await discover(base)
  const gateway = resolveEndpoint(base, discovery.endpoints.gateway, 'gateway')
  gateway.protocol = gateway.protocol === 'https:' || gateway.protocol === 'wss:' ? 'wss:' : 'ws:'
  const pairingUrl = resolveEndpoint(base, discovery.endpoints.pairing, 'pairing')
  if (pairingUrl.protocol !== 'http:' && pairingUrl.protocol !== 'https:')
    throw new PairingError(`the service's pairing endpoint is not http or https: ${pairingUrl.href}`)
  // Before the ledger opens and the code is spent: a running agent keeps its data directory.
  const lock = lockDataDir(options.dataDir, 'agent')
  let ledger: Ledger
  try {
    ledger = Ledger.open(options.dataDir)
  } catch (error) {
    lock.release()
    throw error
  }
  try {
    const key = AgentKey.create(options.dataDir)
    try {
      const request = {
        protocolVersion: '1',
        code: options.code,
        agent: {
          name: options.name,
          version: options.version,
          platform: process.platform,
          installationId: `installation_${crypto.randomUUID().replace(/-/g, '')}`,
        },
        credential: { algorithm: 'Ed25519', publicKey: { kty: 'OKP', crv: 'Ed25519', x: await key.publicKey() } },
      }
      const body = JSON.stringify(request)
      if (body.length > MAX_AUTH_FRAME_BYTES) throw new PairingError('--name is too long')
      const answer = await fetchJson(pairingUrl.href, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      if (!answer.ok) throw new PairingError(answer.problem)
      if (!isSuccess(answer.status)) {
        const error = (answer.body as { error?: { code?: string; message?: string } }).error
        throw new PairingError(
          `the service refused to pair: ` +
            `${error?.code ?? `HTTP ${answer.status}`}${error?.message ? ` (${error.message})` : ''}`,
        )
      }
      const paired = validate(pairingResponseRule, answer.body)
      if (!paired.ok) throw new PairingError('the service answered the pairing with something else than a pairing')
      if (paired.value.serverId !== discovery.server.id)
        throw new PairingError('the service that paired is not the one that was discovered')
      const pairing: Pairing = {
        server: discoveryUrl(base, ''),
        gateway: gateway.href,
        serverId: paired.value.serverId,
        agentId: paired.value.agentId,
        keyId: paired.value.keyId,
      }
      ledger.setSettings(
        Object.fromEntries(Object.entries(SETTINGS).map(([name, key]) => [key, pairing[name as keyof Pairing]])),
      )
      return pairing
    } catch (error) {
      rmSync(join(options.dataDir, KEY_FILE), { force: true })
      throw error
    }
  } finally {
    ledger.close()
    lock.release()
  }
}

export interface RunningAgent {
  agent: Agent
  pairing: Pairing
  stop(): Promise<void>
}

/**
 * Runs a paired agent from its data directory until stopped; the data directory is locked for it
 * (DataDirInUseError when another agent or hub has it).
 */
export function runAgent(options: { dataDir: string; version: string; log: Logger }): RunningAgent {
  const lock = lockDataDir(options.dataDir, 'agent')
  let ledger: Ledger | undefined
  try {
    ledger = Ledger.open(options.dataDir, { log: options.log })
    return serve(ledger, lock.release, options)
  } catch (error) {
    ledger?.close()
    lock.release()
    throw error
  }
}

function serve(
  ledger: Ledger,
  unlock: () => void,
  options: { dataDir: string; version: string; log: Logger },
): RunningAgent {
  const pairing = pairingOf(ledger)
  const key = AgentKey.load(options.dataDir)
  if (!pairing || !key)
    throw new PairingError(`the agent in ${options.dataDir} is not paired: run printhub agent --server URL --code CODE`)
  const agent = new Agent({
    ledger,
    key,
    credentials: { agentId: pairing.agentId, keyId: pairing.keyId },
    catalog: { printers: () => ledger.printers() },
    connector: websocketConnector(pairing.gateway),
    virtuals: new VirtualPrinters(),
    confinement: confinementOf(options.dataDir),
    version: options.version,
    log: options.log,
    // Said here as the hub says it of its own printers: a fault is a warning, one budget per printer.
    printerStateChanged: (printerId, state) => {
      options.log
        .for('printer')
        [needsAttention(state) ? 'warn' : 'info'](
          `-> ${state}`,
          { printer: printerId },
          { limit: `printer ${printerId}` },
        )
    },
  })
  agent.start()
  return {
    agent,
    pairing,
    async stop() {
      await agent.stop()
      ledger.close()
      unlock()
    },
  }
}
