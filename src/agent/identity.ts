// The agent's Ed25519 key. The private key is a file in the agent's data directory, readable by
// its owner only; the hub only ever sees the public key.
import { getPublicKeyAsync, signAsync, utils } from '@noble/ed25519'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeBase64Url, encodeBase64Url } from '../protocol/values.ts'

export const KEY_FILE = 'agent.key'

export class AgentKey {
  private constructor(private readonly secret: Uint8Array) {}

  /** A new key, written to `dir` (mode 0600) before anyone learns its public half. */
  static create(dir: string): AgentKey {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const secret = utils.randomSecretKey()
    const file = join(dir, KEY_FILE)
    writeFileSync(file, `${encodeBase64Url(secret)}\n`, { mode: 0o600 })
    chmodSync(file, 0o600)
    return new AgentKey(secret)
  }

  static load(dir: string): AgentKey | undefined {
    const file = join(dir, KEY_FILE)
    if (!existsSync(file)) return undefined
    const secret = decodeBase64Url(readFileSync(file, 'utf8').trim())
    if (secret?.length !== 32) throw new Error(`${file} does not hold an Ed25519 key; pair the agent again`)
    return new AgentKey(secret)
  }

  /** The public key as the protocol writes it (JWK `x`). */
  async publicKey(): Promise<string> {
    return encodeBase64Url(await getPublicKeyAsync(this.secret))
  }

  async sign(message: Uint8Array): Promise<string> {
    return encodeBase64Url(await signAsync(message, this.secret))
  }
}
