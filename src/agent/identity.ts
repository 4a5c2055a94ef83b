// The agent's Ed25519 key. The private key is a file in the agent's data directory, readable by
// its owner only; the hub only ever sees the public key. Signed with the runtime's own Ed25519
// (a JavaScript implementation builds tables that kept about 14 MB of every hub resident, for
// the one signature of the built-in agent's handshake).
import { createPrivateKey, createPublicKey, type KeyObject, randomBytes, sign } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeFileDurably } from '../platform/durable-file.ts'
import { decodeBase64Url, encodeBase64Url } from '../protocol/values.ts'

export const KEY_FILE = 'agent.key'

/** PKCS #8 for an Ed25519 private key, up to its 32-byte seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

export class AgentKey {
  private readonly key: KeyObject

  private constructor(secret: Uint8Array) {
    this.key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, secret]), format: 'der', type: 'pkcs8' })
  }

  /**
   * A new key, written to `dir` (mode 0600) and flushed to the disk before anyone learns its public half: a power cut
   * right after pairing leaves the key the hub knows, never an empty file.
   */
  static create(dir: string): AgentKey {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const secret = new Uint8Array(randomBytes(32))
    writeFileDurably(join(dir, KEY_FILE), `${encodeBase64Url(secret)}\n`, 0o600)
    return new AgentKey(secret)
  }

  /** A key of this process only, never written anywhere: a cluster node's own agent's (hub/node-agent.ts). */
  static ephemeral(): AgentKey {
    return new AgentKey(new Uint8Array(randomBytes(32)))
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
    return createPublicKey(this.key).export({ format: 'jwk' }).x!
  }

  /** Pure Ed25519 (RFC 8032) over `message`. */
  async sign(message: Uint8Array): Promise<string> {
    return encodeBase64Url(sign(null, message, this.key))
  }
}
