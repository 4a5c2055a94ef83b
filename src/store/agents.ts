import type { Database } from 'bun:sqlite'
import { newId } from './ids.ts'
import { iso } from './time.ts'

export interface NewAgent {
  name: string
  version: string
  platform: string
  installationId: string
  /** The Ed25519 public key `x` (unpadded base64url, 32 bytes). */
  publicKey: string
}

export interface PairedAgent {
  id: string
  keyId: string
  pairedAt: string
}

/** Agents paired with the hub and their public keys. The private keys never leave the agents. */
export class Agents {
  constructor(private readonly db: Database) {}

  insert(agent: NewAgent, pairedAt: number): PairedAgent {
    const id = newId('agt')
    const keyId = newId('key')
    this.db.run(
      `INSERT INTO agents (id, key_id, name, version, platform, installation_id, public_key, paired_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, keyId, agent.name, agent.version, agent.platform, agent.installationId, agent.publicKey, pairedAt],
    )
    return { id, keyId, pairedAt: iso(pairedAt) }
  }
}
