// A real Agent talking to a real Gateway and SessionRegistry in this process, over the in-memory
// pipe the built-in agent uses, with a look at every frame as it leaves the agent: the set-up of
// the tests of when an agent tells its hub what (test/agent/durability.test.ts and
// builtin-at-once.test.ts). The hub's side is the registry alone: what it hears is kept in `heard`.
import { tmpdir } from 'node:os'
import { expect } from 'bun:test'
import { Agent } from '../../src/agent/agent.ts'
import type { CatalogPrinter } from '../../src/agent/catalog.ts'
import type { Connector } from '../../src/agent/connection.ts'
import { AgentKey } from '../../src/agent/identity.ts'
import type { HubRecords } from '../../src/agent/builtin-ledger.ts'
import type { AgentLedger, PrintJobPayload } from '../../src/agent/ledger.ts'
import type { Render } from '../../src/agent/render-ahead.ts'
import { VERSION } from '../../src/domain/version.ts'
import { Gateway } from '../../src/gateway/gateway.ts'
import { SessionRegistry } from '../../src/gateway/registry.ts'
import type { GatewaySession, JobReport } from '../../src/gateway/session.ts'
import { inMemoryConnector } from '../../src/hub/in-memory-link.ts'
import type { Logger } from '../../src/platform/log.ts'
import { printhubServerVersion } from '../../src/protocol/extensions.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { VirtualPrinters } from '../../src/transports/virtual.ts'
import { waitFor } from './wait.ts'

/**
 * A hub that holds none of the pipe's jobs, for a built-in ledger: each job keeps its payload (a printer's first few
 * do).
 */
export const HUB_HOLDING_NONE: HubRecords = {
  backlogEnds: () => new Map(),
  held: () => [],
  heldJob: () => undefined,
  payload: () => undefined,
}

const AGENT_ID = `agt_${'a'.repeat(32)}`
const KEY_ID = `key_${'b'.repeat(32)}`

export interface AgentPipeOptions {
  ledger: AgentLedger
  /** Where the agent's key is made. */
  keyDir: string
  /** Whether the agent's ledger commits with the hub (the built-in agent's, in the hub's database). */
  sharesCommits: boolean
  printers: CatalogPrinter[]
  /**
   * Called with each frame as the agent sends it, before the pipe takes it; what it returns runs
   * once the pipe took it (the pipe throws when closed, and the agent sends the frame again later).
   */
  watch: (text: string) => (() => void) | undefined
  log: Logger
  /** How documents are rendered (the agent's own renderer when not given). */
  render?: Render
  /** False: the agent takes the hub for a remote one (as a paired agent's hub is), though the pipe is in memory. */
  hubInProcess?: false
}

export interface AgentPipe {
  agent: Agent
  /** The reports the hub's side heard, in order. */
  heard: JobReport[]
  /** The agent's current session, as of its last inventory. */
  session(): GatewaySession
  /** Run by the hub's side as soon as the next session is connected, before the agent's inventory. */
  onNextConnection(then: (session: GatewaySession) => void): void
  printJob(payload: PrintJobPayload): void
  heardOf(jobId: string, kind: JobReport['kind']): number
  stop(): Promise<void>
}

/** Starts the agent and resolves once the hub's side has its inventory. */
export async function agentOverPipe(options: AgentPipeOptions): Promise<AgentPipe> {
  const key = AgentKey.create(options.keyDir)
  const publicKey = await key.publicKey()
  const heard: JobReport[] = []
  let session: GatewaySession | undefined
  let onConnected: ((session: GatewaySession) => void) | undefined
  const registry = new SessionRegistry()
  registry.listen({
    connected: (s) => {
      onConnected?.(s)
      onConnected = undefined
    },
    inventory: (s) => void (session = s),
    report: (_, report) => void heard.push(report),
    closed: () => {},
  })
  const gateway = new Gateway(
    {
      serverId: `srv_${'c'.repeat(32)}`,
      serverName: () => 'agent pipe test',
      serverVersion: printhubServerVersion(VERSION),
      challengeTtlMs: 30_000,
      authenticationTimeoutMs: 30_000,
      handshakeTimeoutMs: 10_000,
      heartbeatIntervalMs: 15_000,
      heartbeatTimeoutMs: 45_000,
      now: Date.now,
      credential: (agentId, keyId) =>
        agentId === AGENT_ID && keyId === KEY_ID ? { publicKey, revoked: false } : undefined,
    },
    registry,
  )
  const watched =
    (connector: Connector): Connector =>
    async (handlers) => {
      const transport = await connector(handlers)
      return {
        send(text) {
          const taken = options.watch(text)
          transport.send(text)
          taken?.()
        },
        close: (code, reason) => transport.close(code, reason),
        inProcess: options.hubInProcess ?? transport.inProcess,
      }
    }
  const agent = new Agent({
    ledger: options.ledger,
    key,
    credentials: { agentId: AGENT_ID, keyId: KEY_ID },
    catalog: { printers: () => options.printers },
    connector: watched(inMemoryConnector(gateway, { sharesCommits: options.sharesCommits })),
    virtuals: new VirtualPrinters(),
    confinement: confinementOf(tmpdir()),
    version: VERSION,
    log: options.log,
    statusPollMs: 60_000,
    render: options.render,
  })
  agent.start()
  await waitFor(() => session?.printers.size === options.printers.length, 5_000)
  return {
    agent,
    heard,
    session: () => session!,
    onNextConnection: (then) => void (onConnected = then),
    printJob(payload) {
      expect(
        session!.send({
          messageId: `m.${payload.jobId}`,
          sentAt: new Date().toISOString(),
          type: 'server.print_job',
          payload,
        }),
      ).toBe(true)
    },
    heardOf: (jobId, kind) => heard.filter((r) => r.jobId === jobId && r.kind === kind).length,
    stop: () => agent.stop(),
  }
}
