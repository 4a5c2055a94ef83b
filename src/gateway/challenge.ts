// The challenge a session opens with (OpenPrinter v1 section 3): a payload that binds it to this
// server, this session and this moment, for the agent to sign with its Ed25519 key; and the checks
// of the agent's answer (auth.response), up to the signature's.
import { decodeFrame, encodeFrame } from '../protocol/codec.ts'
import { type AuthRejectionCode, authChallengeRule, authResponseRule } from '../protocol/frames.ts'
import { MAX_AUTH_FRAME_BYTES } from '../protocol/limits.ts'
import { encodeBase64Url } from '../protocol/values.ts'
import { verifySignature } from './ed25519.ts'
import { randomHex } from './message-ids.ts'
import type { AgentCredential, GatewaySettings } from './session-types.ts'

/** An answer that passed every check but its signature's (`verify`), or why it is refused. */
export type Answer =
  | { ok: true; agentId: string; signature: string; credential: AgentCredential }
  | { ok: false; code: AuthRejectionCode; agentId?: string }

export class Challenge {
  readonly id = `challenge_${randomHex(16)}`
  private payload = new Uint8Array()
  private expiresAt = 0

  constructor(
    private readonly settings: GatewaySettings,
    private readonly sessionId: string,
  ) {}

  /** The auth.challenge frame, made now: the challenge expires `challengeTtlMs` from now. */
  open(): string {
    const now = this.settings.now()
    this.expiresAt = now + this.settings.challengeTtlMs
    const expiresAt = new Date(this.expiresAt).toISOString()
    const nonce = encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)))
    // The reference layout: a domain tag, then what binds the challenge to this server and socket.
    this.payload = new TextEncoder().encode(
      ['openprinter-auth-v1', this.settings.serverId, this.sessionId, this.id, nonce, expiresAt].join('\n'),
    )
    return encodeFrame(
      authChallengeRule,
      { type: 'auth.challenge', challengeId: this.id, payload: encodeBase64Url(this.payload), expiresAt },
      MAX_AUTH_FRAME_BYTES,
    )
  }

  /** The agent's answer, checked up to its signature: this challenge's, in time, from a credential that is valid. */
  async check(data: string | Uint8Array): Promise<Answer> {
    const decoded = typeof data === 'string' ? decodeFrame(authResponseRule, data, MAX_AUTH_FRAME_BYTES) : undefined
    if (!decoded?.ok) {
      // The reference names a wrong algorithm apart; everything else is an invalid challenge answer.
      const algorithm = typeof data === 'string' && decoded?.code === 'invalid_message' ? algorithmOf(data) : undefined
      return {
        ok: false,
        code: typeof algorithm === 'string' && algorithm !== 'Ed25519' ? 'unsupported_algorithm' : 'challenge_invalid',
      }
    }
    const response = decoded.message
    if (response.challengeId !== this.id) return { ok: false, code: 'challenge_invalid' }
    if (this.expiresAt <= this.settings.now()) return { ok: false, code: 'challenge_expired' }
    const { agentId } = response
    const credential = await this.settings.credential(agentId, response.keyId)
    if (!credential) return { ok: false, code: 'credential_not_found', agentId }
    if (credential.revoked) return { ok: false, code: 'credential_revoked', agentId }
    return { ok: true, agentId, signature: response.signature, credential }
  }

  /** Whether `signature` is the credential's key's over this challenge. */
  verify(signature: string, credential: AgentCredential): Promise<boolean> {
    return verifySignature(signature, this.payload, credential.publicKey)
  }
}

/** The `algorithm` of a frame that did not decode as an auth.response, if it has one. */
function algorithmOf(text: string): unknown {
  try {
    const value = JSON.parse(text) as unknown
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>).algorithm : undefined
  } catch {
    return undefined
  }
}
