import type { Database } from 'bun:sqlite'
import {
  formatPairingCode,
  isWellFormedPairingCode,
  normalizePairingCode,
  PAIRING_CODE_ALPHABET,
  PAIRING_CODE_SYMBOLS,
} from '../protocol/pairing.ts'
import type { Agents, NewAgent, PairedAgent } from './agents.ts'
import { hashSecret, randomSymbols } from '../storage/secrets.ts'
import { iso } from '../storage/time.ts'

export type RedeemOutcome =
  | { kind: 'paired'; agent: PairedAgent }
  | { kind: 'invalid' }
  | { kind: 'expired' }
  | { kind: 'consumed' }

interface CodeRow {
  expires_at: number
  consumed_at: number | null
}

/** One-time pairing codes, stored only as hashes of their normalised form. */
export class PairingCodes {
  constructor(
    private readonly db: Database,
    private readonly agents: Agents,
    private readonly now: () => number,
  ) {}

  create(ttlMs: number): { code: string; expiresAt: string } {
    const createdAt = this.now()
    for (;;) {
      const normalized = randomSymbols(PAIRING_CODE_ALPHABET, PAIRING_CODE_SYMBOLS)
      const inserted = this.db.run(
        'INSERT INTO pairing_codes (code_hash, created_at, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
        [hashSecret(normalized), createdAt, createdAt + ttlMs],
      )
      if (inserted.changes === 1) return { code: formatPairingCode(normalized), expiresAt: iso(createdAt + ttlMs) }
    }
  }

  /**
   * Consumes the code and registers the agent in one transaction: exactly one of any number of
   * concurrent redemptions wins. The first try of an expired code retires it.
   */
  redeem(code: string, agent: NewAgent): RedeemOutcome {
    const normalized = normalizePairingCode(code)
    if (!isWellFormedPairingCode(normalized)) return { kind: 'invalid' }
    const hash = hashSecret(normalized)
    return this.db
      .transaction((): RedeemOutcome => {
        const row = this.db
          .query<CodeRow, [Uint8Array]>('SELECT expires_at, consumed_at FROM pairing_codes WHERE code_hash = ?')
          .get(hash)
        if (!row) return { kind: 'invalid' }
        if (row.consumed_at !== null) return { kind: 'consumed' }
        const now = this.now()
        this.db.run('UPDATE pairing_codes SET consumed_at = ? WHERE code_hash = ?', [now, hash])
        if (row.expires_at <= now) return { kind: 'expired' }
        return { kind: 'paired', agent: this.agents.insert(agent, now) }
      })
      .immediate()
  }
}
