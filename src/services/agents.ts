// The agents paired with the hub as every edge sees and changes them (the admin API, the CLI, the
// public pairing route): listed with the printers they report, revoked (never the hub's built-in
// agent, never twice), paired with a one-time code, and that code made (and printed, when asked).
// Outcomes are values; each edge says them in its own words.
import type { AgentPrinter, AgentRecord, NewAgent, PairedAgent } from '../domain/records.ts'
import type { PaperWidth, PrintDocument } from '../protocol/document.ts'
import { EXPIRES_IN_MS } from '../protocol/limits.ts'
import { isWellFormedPairingCode, normalizePairingCode } from '../protocol/pairing.ts'
import type { UnitRunner } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'
import { type Actor } from './actor.ts'
import { recordedChange } from './audit.ts'
import type { JobService, SubmitOutcome } from './jobs.ts'

export type { NewAgent }

export type RedeemOutcome =
  | { kind: 'paired'; agent: PairedAgent }
  | { kind: 'invalid' }
  | { kind: 'expired' }
  | { kind: 'consumed' }

export type RevokeAgentOutcome =
  | { kind: 'revoked'; agent: AgentRecord }
  | { kind: 'unknown' }
  /** The hub's built-in agent is part of the hub: its printers are removed instead. */
  | { kind: 'builtin' }
  | { kind: 'already_revoked'; agent: AgentRecord }

/** What a pairing code is asked with: how long it lasts, the command that uses it, and where to print both. */
export interface PairingCodeRequest {
  ttlMs: number
  /** The hub's address as agents reach it: the answer then has the command that uses the code. */
  serverUrl?: string | undefined
  /** A printer record to print the code on, with that command. */
  printOn?: string | undefined
}

export type PairingCodeOutcome =
  | {
      kind: 'created'
      code: string
      expiresAt: string
      /** The command that uses it on the agent's machine, when the hub's address was given. */
      command: string | null
      /** The job that prints it, when asked. */
      printed: SubmitOutcome | null
    }
  /** The printer to print it on does not exist: no code was made. */
  | { kind: 'unknown_printer' }

/** What the agents' edge needs of the running hub: ending a revoked agent's connection at once. */
export interface AgentConnections {
  disconnect(agentId: string, code: string, reason: string): void
}

/** The pairing code on paper, with the command that uses it and its QR code. */
function pairingCodePage(width: PaperWidth, code: string, expiresAt: string, command: string): PrintDocument {
  return {
    width,
    sections: [
      { type: 'text', value: 'Pairing code', align: 'center', bold: true },
      { type: 'text', value: code, align: 'center', bold: true },
      { type: 'text', value: `Valid until ${expiresAt.slice(0, 16).replace('T', ' ')} UTC, once.` },
      { type: 'text', value: 'On the agent machine run:' },
      { type: 'text', value: command },
      { type: 'qr', value: command },
      { type: 'feed', lines: 1 },
      { type: 'cut' },
    ],
  }
}

export class AgentService {
  constructor(
    private readonly units: UnitRunner,
    private readonly jobs: JobService,
    /** The running hub's connections; none from the CLI (the hub ends a revoked agent's within a second). */
    private readonly connections: AgentConnections | undefined,
    private readonly now: () => number,
  ) {}

  /** Every paired agent, the built-in one first. */
  list(): Promise<AgentRecord[]> {
    return this.units.read((db) => db.agents.list())
  }

  get(id: string): Promise<AgentRecord | undefined> {
    return this.units.read((db) => db.agents.get(id))
  }

  /** The hub's built-in agent (undefined before the data directory was initialised). */
  builtin(): Promise<AgentRecord | undefined> {
    return this.units.read((db) => db.agents.builtin())
  }

  /** The printers every paired agent last reported. */
  reportedPrinters(): Promise<AgentPrinter[]> {
    return this.units.read((db) => db.agents.printers())
  }

  /** Revokes an agent: it can no longer authenticate, and a connected one is disconnected. */
  async revoke(actor: Actor, agentId: string): Promise<RevokeAgentOutcome> {
    const outcome = await this.units.write(function* (db): Unit<RevokeAgentOutcome> {
      const agent = yield* db.agents.get(agentId)
      if (!agent) return { kind: 'unknown' }
      if (agent.builtin) return { kind: 'builtin' }
      if (!(yield* db.agents.revoke(agent.id))) return { kind: 'already_revoked', agent }
      yield* recordedChange(db, { actor, action: 'agents.revoke', target: agent.id })
      return { kind: 'revoked', agent: (yield* db.agents.get(agent.id))! }
    })
    if (outcome.kind === 'revoked')
      this.connections?.disconnect(outcome.agent.id, 'credential_revoked', 'This agent was revoked.')
    return outcome
  }

  /** A one-time code that pairs the next agent; printed on a printer with the command that uses it, when asked. */
  async createPairingCode(
    actor: Actor,
    { ttlMs, serverUrl, printOn }: PairingCodeRequest,
  ): Promise<PairingCodeOutcome> {
    const printer = printOn === undefined ? undefined : await this.units.read((db) => db.printers.get(printOn))
    if (printOn !== undefined && !printer) return { kind: 'unknown_printer' }
    const { code, expiresAt } = await this.units.write(function* (db): Unit<{ code: string; expiresAt: string }> {
      const made = yield* db.pairingCodes.create(ttlMs)
      yield* recordedChange(db, { actor, action: 'pairing-codes.create', target: null })
      return made
    })
    const command =
      serverUrl === undefined ? undefined : `printhub agent --server ${serverUrl.replace(/\/$/, '')} --code ${code}`
    const printed =
      printer && command
        ? await this.jobs.submit({
            projectId: printer.projectId,
            printerId: printer.id,
            idempotencyKey: `pairing-code-${crypto.randomUUID()}`,
            document: pairingCodePage(printer.width, code, expiresAt, command),
            metadata: { printhub: 'pairing-code' },
            expiresInMs: Math.max(EXPIRES_IN_MS.min, Date.parse(expiresAt) - this.now()),
            maxAttempts: 1,
          })
        : null
    return { kind: 'created', code, expiresAt, command: command ?? null, printed }
  }

  /**
   * An agent redeems a pairing code and registers its key (OpenPrinter's pairing) in one change: exactly one of any
   * number of concurrent redemptions wins. The first try of an expired code retires it.
   */
  pair(code: string, agent: NewAgent): Promise<RedeemOutcome> {
    const normalized = normalizePairingCode(code)
    if (!isWellFormedPairingCode(normalized)) return Promise.resolve({ kind: 'invalid' })
    const now = this.now()
    return this.units.write(function* (db): Unit<RedeemOutcome> {
      const found = yield* db.pairingCodes.find(normalized)
      if (!found) return { kind: 'invalid' }
      if (found.consumedAt !== null) return { kind: 'consumed' }
      yield* db.pairingCodes.consume(normalized, now)
      if (found.expiresAt <= now) return { kind: 'expired' }
      return { kind: 'paired', agent: yield* db.agents.insert(agent, now) }
    })
  }
}
