// One-time pairing codes on SQLite, stored only as hashes of their normalised form (services/agents.ts redeems them).
import type { Database } from 'bun:sqlite'
import { formatPairingCode, PAIRING_CODE_ALPHABET, PAIRING_CODE_SYMBOLS } from '../protocol/pairing.ts'
import type { PairingCodeRepository, PairingCodeState } from '../storage/repositories.ts'
import { hashSecret, randomSymbols } from '../storage/secrets.ts'
import { iso } from '../storage/time.ts'

export class PairingCodes implements PairingCodeRepository {
  constructor(
    private readonly db: Database,
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

  find(normalized: string): PairingCodeState | undefined {
    const row = this.db
      .query<{ expires_at: number; consumed_at: number | null }, [Uint8Array]>(
        'SELECT expires_at, consumed_at FROM pairing_codes WHERE code_hash = ?',
      )
      .get(hashSecret(normalized))
    return row ? { expiresAt: row.expires_at, consumedAt: row.consumed_at } : undefined
  }

  consume(normalized: string, at: number): void {
    this.db.run('UPDATE pairing_codes SET consumed_at = ? WHERE code_hash = ?', [at, hashSecret(normalized)])
  }
}
