import type { Database } from 'bun:sqlite'
import type { PrinterDescriptor } from '../protocol/frames.ts'
import type { GroupCommit } from '../sqlite/group-commit.ts'
import { newId } from '../storage/ids.ts'
import { iso } from '../storage/time.ts'
import type { AgentPrinter, AgentRecord, NewAgent, PairedAgent } from '../domain/records.ts'
import {
  type AgentPrinterRow,
  type AgentRow,
  agentOf as toAgent,
  agentPrinterOf as toAgentPrinter,
  inventoryChanges,
} from '../storage/agent-rows.ts'
import type { AgentCredential, AgentRepository } from '../storage/repositories.ts'

export type { AgentPrinter, AgentRecord, NewAgent, PairedAgent }

/** Agents paired with the hub, their public keys and their printers. Private keys never come here. */
export class Agents implements AgentRepository {
  constructor(
    private readonly db: Database,
    private readonly commits: GroupCommit,
    private readonly now: () => number,
  ) {}

  insert(agent: NewAgent, pairedAt: number, options: { builtin?: boolean } = {}): PairedAgent {
    const id = newId('agt')
    const keyId = newId('key')
    this.db.run(
      `INSERT INTO agents (id, key_id, name, version, platform, installation_id, public_key, paired_at, builtin)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        keyId,
        agent.name,
        agent.version,
        agent.platform,
        agent.installationId,
        agent.publicKey,
        pairedAt,
        options.builtin ? 1 : 0,
      ],
    )
    return { id, keyId, pairedAt: iso(pairedAt) }
  }

  credential(agentId: string, keyId: string): AgentCredential | undefined {
    const row = this.db
      .query<{ public_key: string; revoked_at: number | null; name: string }, [string, string]>(
        'SELECT public_key, revoked_at, name FROM agents WHERE id = ? AND key_id = ?',
      )
      .get(agentId, keyId)
    return row ? { publicKey: row.public_key, revoked: row.revoked_at !== null, name: row.name } : undefined
  }

  get(id: string): AgentRecord | undefined {
    const row = this.db.query<AgentRow, [string]>('SELECT * FROM agents WHERE id = ?').get(id)
    return row ? toAgent(row) : undefined
  }

  list(): AgentRecord[] {
    return this.db.query<AgentRow, []>('SELECT * FROM agents ORDER BY paired_at, id').all().map(toAgent)
  }

  /** The hub's own agent, once paired at the first start. */
  builtin(): AgentRecord | undefined {
    const row = this.db
      .query<AgentRow, []>(
        'SELECT * FROM agents WHERE builtin = 1 AND revoked_at IS NULL ORDER BY paired_at DESC LIMIT 1',
      )
      .get()
    return row ? toAgent(row) : undefined
  }

  /** Revokes an agent's credential; false when there is no such agent or it is already revoked. */
  revoke(id: string): boolean {
    return (
      this.db.run('UPDATE agents SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [this.now(), id]).changes ===
      1
    )
  }

  /** True when the agent's credential has been revoked (or the agent is unknown). */
  isRevoked(id: string): boolean {
    return (
      this.db.query<{ revoked_at: number | null }, [string]>('SELECT revoked_at FROM agents WHERE id = ?').get(id)
        ?.revoked_at !== null
    )
  }

  /** When the agent was last connected: in the group commit, flushed off the event loop (a crash may lose it). */
  seen(id: string): void {
    this.commits.defer(() => this.db.run('UPDATE agents SET last_seen_at = ? WHERE id = ?', [this.now(), id]))
  }

  /**
   * Replaces what the hub knows of an agent's printers with its latest inventory, writing only the
   * printers that changed (an inventory that says the same again writes nothing); whether any did.
   */
  replacePrinters(agentId: string, printers: readonly PrinterDescriptor[]): boolean {
    const now = this.now()
    const known = new Map(
      this.db
        .query<{ printer_id: string; descriptor: string }, [string]>(
          'SELECT printer_id, descriptor FROM agent_printers WHERE agent_id = ?',
        )
        .all(agentId)
        .map((row) => [row.printer_id, row.descriptor]),
    )
    const { changed, gone } = inventoryChanges(known, printers)
    if (changed.length === 0 && gone.length === 0) return false
    this.db.transaction(() => {
      const remove = this.db.query('DELETE FROM agent_printers WHERE agent_id = ? AND printer_id = ?')
      for (const id of gone) remove.run(agentId, id)
      const upsert = this.db.query(
        `INSERT INTO agent_printers (agent_id, printer_id, name, availability, enabled, descriptor, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (agent_id, printer_id) DO UPDATE SET name = excluded.name, availability = excluded.availability,
           enabled = excluded.enabled, descriptor = excluded.descriptor, updated_at = excluded.updated_at`,
      )
      for (const [p, descriptor] of changed)
        upsert.run(agentId, p.id, p.name, p.availability, p.enabled ? 1 : 0, descriptor, now)
    })()
    return true
  }

  /** Every agent's printers as last reported. */
  printers(): AgentPrinter[] {
    return this.db
      .query<AgentPrinterRow, []>('SELECT * FROM agent_printers ORDER BY agent_id, printer_id')
      .all()
      .map(toAgentPrinter)
  }

  printer(agentId: string, printerId: string): AgentPrinter | undefined {
    const row = this.db
      .query<AgentPrinterRow, [string, string]>('SELECT * FROM agent_printers WHERE agent_id = ? AND printer_id = ?')
      .get(agentId, printerId)
    return row ? toAgentPrinter(row) : undefined
  }
}
