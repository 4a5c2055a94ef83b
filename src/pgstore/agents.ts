// Agents on PostgreSQL, their printers and the pairing codes that pair them: the same records and rules as the SQLite
// store's (store/agents.ts, pairing-codes.ts).
import type { SQL } from 'bun'
import type { AgentPrinter, AgentRecord, NewAgent, PairedAgent } from '../domain/records.ts'
import type { PrinterDescriptor } from '../protocol/frames.ts'
import { formatPairingCode, PAIRING_CODE_ALPHABET, PAIRING_CODE_SYMBOLS } from '../protocol/pairing.ts'
import {
  type AgentPrinterRow,
  type AgentRow,
  agentOf,
  agentPrinterOf,
  inventoryChanges,
} from '../storage/agent-rows.ts'
import { newId } from '../storage/ids.ts'
import type {
  AgentCredential,
  AgentRepository,
  PairingCodeRepository,
  PairingCodeState,
} from '../storage/repositories.ts'
import { type Big, int } from '../storage/rows.ts'
import { hashSecret, randomSymbols } from '../storage/secrets.ts'
import { iso } from '../storage/time.ts'

const AGENT = 'id, key_id, name, version, platform, builtin, paired_at, last_seen_at, revoked_at'
const PRINTER = 'agent_id, printer_id, name, availability, enabled, descriptor, updated_at'

export class PgAgents implements AgentRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  async insert(agent: NewAgent, pairedAt: number, options: { builtin?: boolean } = {}): Promise<PairedAgent> {
    const id = newId('agt')
    const keyId = newId('key')
    await this.sql`INSERT INTO agents
        (id, key_id, name, version, platform, installation_id, public_key, paired_at, builtin)
      VALUES (${id}, ${keyId}, ${agent.name}, ${agent.version}, ${agent.platform}, ${agent.installationId},
        ${agent.publicKey}, ${pairedAt}, ${options.builtin === true})`
    return { id, keyId, pairedAt: iso(pairedAt) }
  }

  async credential(agentId: string, keyId: string): Promise<AgentCredential | undefined> {
    const [row] = await this.sql<{ public_key: string; revoked_at: Big | null; name: string }[]>`SELECT
        public_key, revoked_at, name FROM agents WHERE id = ${agentId} AND key_id = ${keyId}`
    return row ? { publicKey: row.public_key, revoked: row.revoked_at !== null, name: row.name } : undefined
  }

  async get(id: string): Promise<AgentRecord | undefined> {
    const [row] = await this.sql<AgentRow[]>`SELECT ${this.sql.unsafe(AGENT)} FROM agents WHERE id = ${id}`
    return row ? agentOf(row) : undefined
  }

  async list(): Promise<AgentRecord[]> {
    const rows = await this.sql<AgentRow[]>`SELECT ${this.sql.unsafe(AGENT)} FROM agents ORDER BY paired_at, id`
    return rows.map(agentOf)
  }

  async builtin(): Promise<AgentRecord | undefined> {
    const [row] = await this.sql<AgentRow[]>`SELECT ${this.sql.unsafe(AGENT)} FROM agents
      WHERE builtin AND revoked_at IS NULL ORDER BY paired_at DESC LIMIT 1`
    return row ? agentOf(row) : undefined
  }

  async revoke(id: string): Promise<boolean> {
    const rows = await this.sql`UPDATE agents SET revoked_at = ${this.now()}
      WHERE id = ${id} AND revoked_at IS NULL RETURNING id`
    return rows.length === 1
  }

  async isRevoked(id: string): Promise<boolean> {
    const [row] = await this.sql<{ revoked_at: Big | null }[]>`SELECT revoked_at FROM agents WHERE id = ${id}`
    return row?.revoked_at !== null
  }

  async seen(id: string): Promise<void> {
    await this.sql`UPDATE agents SET last_seen_at = ${this.now()} WHERE id = ${id}`
  }

  async replacePrinters(agentId: string, printers: readonly PrinterDescriptor[]): Promise<boolean> {
    const rows = await this.sql<{ printer_id: string; descriptor: string }[]>`SELECT printer_id, descriptor
      FROM agent_printers WHERE agent_id = ${agentId}`
    const { changed, gone } = inventoryChanges(new Map(rows.map((row) => [row.printer_id, row.descriptor])), printers)
    if (changed.length === 0 && gone.length === 0) return false
    const now = this.now()
    if (gone.length > 0)
      await this.sql`DELETE FROM agent_printers WHERE agent_id = ${agentId}
        AND printer_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(gone)}::text::jsonb))`
    for (const [p, descriptor] of changed)
      await this.sql`INSERT INTO agent_printers
          (agent_id, printer_id, name, availability, enabled, descriptor, updated_at)
        VALUES (${agentId}, ${p.id}, ${p.name}, ${p.availability}, ${p.enabled}, ${descriptor}, ${now})
        ON CONFLICT (agent_id, printer_id) DO UPDATE SET name = excluded.name, availability = excluded.availability,
          enabled = excluded.enabled, descriptor = excluded.descriptor, updated_at = excluded.updated_at`
    return true
  }

  async printers(): Promise<AgentPrinter[]> {
    const rows = await this.sql<AgentPrinterRow[]>`SELECT ${this.sql.unsafe(PRINTER)} FROM agent_printers
      ORDER BY agent_id, printer_id`
    return rows.map(agentPrinterOf)
  }

  async printer(agentId: string, printerId: string): Promise<AgentPrinter | undefined> {
    const [row] = await this.sql<AgentPrinterRow[]>`SELECT ${this.sql.unsafe(PRINTER)} FROM agent_printers
      WHERE agent_id = ${agentId} AND printer_id = ${printerId}`
    return row ? agentPrinterOf(row) : undefined
  }
}

export class PgPairingCodes implements PairingCodeRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  async create(ttlMs: number): Promise<{ code: string; expiresAt: string }> {
    const createdAt = this.now()
    for (;;) {
      const normalized = randomSymbols(PAIRING_CODE_ALPHABET, PAIRING_CODE_SYMBOLS)
      const inserted = await this.sql`INSERT INTO pairing_codes (code_hash, created_at, expires_at)
        VALUES (${hashSecret(normalized)}, ${createdAt}, ${createdAt + ttlMs}) ON CONFLICT DO NOTHING RETURNING 1`
      if (inserted.length === 1) return { code: formatPairingCode(normalized), expiresAt: iso(createdAt + ttlMs) }
    }
  }

  async find(normalized: string): Promise<PairingCodeState | undefined> {
    const [row] = await this.sql<{ expires_at: Big; consumed_at: Big | null }[]>`SELECT expires_at, consumed_at
      FROM pairing_codes WHERE code_hash = ${hashSecret(normalized)}`
    return row
      ? { expiresAt: int(row.expires_at), consumedAt: row.consumed_at === null ? null : int(row.consumed_at) }
      : undefined
  }

  async consume(normalized: string, at: number): Promise<void> {
    await this.sql`UPDATE pairing_codes SET consumed_at = ${at} WHERE code_hash = ${hashSecret(normalized)}`
  }
}
