// A remote agent: paired with a hub by a one-time code, then serving the printers configured in
// its own data directory (`printhub printers add --local`), over a WebSocket to the hub.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { DISCOVERY_PATHS, discoveryRule } from '../protocol/discovery.ts'
import { MAX_AUTH_FRAME_BYTES } from '../protocol/limits.ts'
import { pairingResponseRule } from '../protocol/pairing.ts'
import { validate } from '../protocol/rules.ts'
import { VirtualPrinters } from '../transports/virtual.ts'
import { Agent } from './agent.ts'
import { AgentKey, KEY_FILE } from './identity.ts'
import { Ledger } from './ledger.ts'
import { websocketConnector } from './websocket.ts'

export const DEFAULT_AGENT_DATA_DIR = './agent-data'
/** Discovery and pairing answers are small; a hub that sends more is not one. */
const MAX_ANSWER_BYTES = 65_536
const HTTP_TIMEOUT_MS = 20_000

const SETTINGS = { server: 'server_url', gateway: 'gateway_url', serverId: 'server_id', agentId: 'agent_id', keyId: 'key_id' } as const

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

async function fetchJson(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  let response: Response
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) })
  } catch (error) {
    throw new PairingError(`cannot reach ${url}: ${(error as Error).message}`)
  }
  const text = await response.text()
  if (text.length > MAX_ANSWER_BYTES) throw new PairingError(`${url} answered more than ${MAX_ANSWER_BYTES} bytes`)
  try {
    return { status: response.status, body: JSON.parse(text) }
  } catch {
    throw new PairingError(`${url} did not answer JSON (HTTP ${response.status})`)
  }
}

/** An endpoint from discovery: an absolute path replaces the base URL's path (reference 1.3). */
function resolveEndpoint(base: URL, endpoint: string): URL {
  return new URL(endpoint, base.origin)
}

/**
 * Discovers the hub, makes a key pair (the private key stays in `dataDir`, mode 0600), and pairs
 * with the one-time code. On any failure the new key is deleted and nothing is recorded.
 */
export async function pairAgent(options: { server: string; code: string; name: string; dataDir: string; version: string }): Promise<Pairing> {
  let base: URL
  try {
    base = new URL(options.server)
  } catch {
    throw new PairingError(`--server must be the hub's URL, like http://192.168.1.10:8080 (got "${options.server}")`)
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new PairingError('--server must be an http:// or https:// URL')
  const discovered = await fetchJson(new URL(DISCOVERY_PATHS[0], base.origin).href)
  const discovery = validate(discoveryRule, discovered.body)
  if (discovered.status !== 200 || !discovery.ok) throw new PairingError(`${base.origin} is not a printhub (its discovery answer is not valid)`)
  const gateway = resolveEndpoint(base, discovery.value.endpoints.gateway)
  gateway.protocol = gateway.protocol === 'https:' || gateway.protocol === 'wss:' ? 'wss:' : 'ws:'
  const ledger = Ledger.open(options.dataDir)
  try {
    const key = AgentKey.create(options.dataDir)
    try {
      const request = {
        protocolVersion: '1',
        code: options.code,
        agent: { name: options.name, version: options.version, platform: process.platform, installationId: `installation_${crypto.randomUUID().replace(/-/g, '')}` },
        credential: { algorithm: 'Ed25519', publicKey: { kty: 'OKP', crv: 'Ed25519', x: await key.publicKey() } },
      }
      const body = JSON.stringify(request)
      if (body.length > MAX_AUTH_FRAME_BYTES) throw new PairingError('--name is too long')
      const answer = await fetchJson(resolveEndpoint(base, discovery.value.endpoints.pairing).href, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      if (answer.status !== 200) {
        const error = (answer.body as { error?: { code?: string; message?: string } }).error
        throw new PairingError(`the hub refused to pair: ${error?.code ?? `HTTP ${answer.status}`}${error?.message ? ` (${error.message})` : ''}`)
      }
      const paired = validate(pairingResponseRule, answer.body)
      if (!paired.ok) throw new PairingError('the hub answered the pairing with something else than a pairing')
      if (paired.value.serverId !== discovery.value.server.id) throw new PairingError('the hub that paired is not the hub that was discovered')
      const pairing: Pairing = { server: base.origin, gateway: gateway.href, serverId: paired.value.serverId, agentId: paired.value.agentId, keyId: paired.value.keyId }
      ledger.setSettings(Object.fromEntries(Object.entries(SETTINGS).map(([name, key]) => [key, pairing[name as keyof Pairing]])))
      return pairing
    } catch (error) {
      rmSync(join(options.dataDir, KEY_FILE), { force: true })
      throw error
    }
  } finally {
    ledger.close()
  }
}

export interface RunningAgent {
  agent: Agent
  pairing: Pairing
  stop(): Promise<void>
}

/** Runs a paired agent from its data directory until stopped. */
export function runAgent(options: { dataDir: string; version: string; log: (line: string) => void }): RunningAgent {
  const ledger = Ledger.open(options.dataDir, { log: options.log })
  const pairing = pairingOf(ledger)
  const key = AgentKey.load(options.dataDir)
  if (!pairing || !key) {
    ledger.close()
    throw new PairingError(`the agent in ${options.dataDir} is not paired: run printhub agent --server URL --code CODE`)
  }
  const agent = new Agent({
    ledger,
    key,
    credentials: { agentId: pairing.agentId, keyId: pairing.keyId },
    catalog: { printers: () => ledger.printers() },
    connector: websocketConnector(pairing.gateway),
    virtuals: new VirtualPrinters(),
    version: options.version,
    log: options.log,
  })
  agent.start()
  return {
    agent,
    pairing,
    async stop() {
      await agent.stop()
      ledger.close()
    },
  }
}
