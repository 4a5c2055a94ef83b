// What a gateway session is given and what it tells (session.ts): its transport, its settings,
// the credential it checks, and the events and job reports the session registry hears.
import type { Logger } from '../platform/log.ts'
import type { Failure } from '../protocol/failures.ts'
import type { PrinterDescriptor } from '../protocol/frames.ts'
import type { Admission } from './admission.ts'
import type { GatewaySession } from './session.ts'

export interface GatewayTransport {
  /** Hands one text frame to the peer; throws when it cannot. */
  send(text: string): void
  close(code: number, reason: string): void
  /** Where the agent connects from (an IP address), for the log. */
  readonly remoteAddress?: string
  /**
   * The peer is this program in this process (the built-in agent), which checks every frame it reads: see encodeFrame.
   */
  readonly inProcess?: boolean
}

export interface AgentCredential {
  publicKey: string
  revoked: boolean
  /** The name the agent paired with, for the log. */
  name?: string
}

export type JobReport =
  | { kind: 'received'; jobId: string; receivedAt: number }
  | { kind: 'submitted'; jobId: string; printerId: string; submittedAt: number }
  /** The agent's failure, in printhub's family of codes. */
  | { kind: 'failed'; jobId: string; failure: Failure }
  /** `submittedAt`: the report also says when every byte reached the printer (no `submitted` report came). */
  | { kind: 'completed'; jobId: string; completedAt: number; submittedAt?: number }
  | { kind: 'cancelled'; jobId: string }

/** What a session tells as it goes (the session registry listens). */
export interface GatewayEvents {
  sessionConnected(session: GatewaySession): void
  sessionInventory(session: GatewaySession, printers: readonly PrinterDescriptor[]): void
  sessionReport(session: GatewaySession, report: JobReport): void
  sessionClosed(session: GatewaySession): void
}

export interface GatewaySettings {
  serverId: string
  /** The hub's name now (a setting, read at each handshake). */
  serverName: () => string
  /** Announced in server.hello; names printhub so that a printhub agent may use the extensions. */
  serverVersion: string
  challengeTtlMs: number
  authenticationTimeoutMs: number
  handshakeTimeoutMs: number
  heartbeatIntervalMs: number
  heartbeatTimeoutMs: number
  now: () => number
  credential(agentId: string, keyId: string): AgentCredential | undefined | Promise<AgentCredential | undefined>
  /** Where refused authentications are told (agents' connections and disconnections: the registry's). */
  log?: Logger
}

export interface SessionOptions {
  /**
   * The agent's ledger commits with the hub's store (the built-in agent): a job may reach it before
   * its creation is on disk, since the job, its dispatch and its receipt then commit together.
   */
  sharesCommits: boolean
  /**
   * Its place among the connections still authenticating (admission.ts): given back once it has authenticated or
   * closed.
   */
  admission?: Admission | undefined
  /**
   * The one credential this session accepts instead of the stored ones: a cluster node's own agent over the link in
   * its process, with a key that lives in that process only (hub/node-agent.ts). Never given to a network connection.
   */
  ownCredential?: { agentId: string; keyId: string; credential: AgentCredential } | undefined
}
