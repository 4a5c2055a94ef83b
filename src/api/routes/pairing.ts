// POST /printservice/pair: an agent redeems a one-time code and registers its Ed25519 public key.
import { Elysia } from 'elysia'
import { isUsablePublicKey } from '../../gateway/ed25519.ts'
import { MAX_AUTH_FRAME_BYTES, PROTOCOL_VERSION } from '../../protocol/limits.ts'
import { PAIRING_PATH } from '../../protocol/discovery.ts'
import {
  normalizePairingCode,
  type PairingRequest,
  type PairingResponse,
  pairingRequestRule,
} from '../../protocol/pairing.ts'
import { validate } from '../../protocol/rules.ts'
import type { ApiContext } from '../context.ts'
import { ApiError, rateLimited } from '../../http/errors.ts'
import { readJsonBody } from '../../http/json-body.ts'
import type { FailureCountsOf } from '../../domain/failure-limit.ts'
import {
  FailureRateLimit,
  PAIRING_ADDRESS_FAILURES,
  PAIRING_CODE_FAILURES,
  remoteAddress,
} from '../../http/failure-rate-limit.ts'

const REJECTIONS = {
  invalid: new ApiError('pairing_code_invalid', 'The pairing code is invalid.'),
  expired: new ApiError('pairing_code_expired', 'The pairing code has expired.'),
  consumed: new ApiError('pairing_code_consumed', 'The pairing code has already been used.'),
  badKey: new ApiError('invalid_public_key', 'The pairing request or public key is invalid.'),
  version: new ApiError('unsupported_protocol_version', 'This server does not support that protocol version.'),
}

const CODE_REJECTIONS = new Set<string | undefined>([
  REJECTIONS.invalid.code,
  REJECTIONS.expired.code,
  REJECTIONS.consumed.code,
])

/** The checks of OpenPrinter v1 section 2.5, in its order: version, then shape and key. */
function parsePairingRequest(body: unknown): PairingRequest {
  const version =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>).protocolVersion : undefined
  if (version !== undefined && version !== PROTOCOL_VERSION && (typeof version !== 'object' || version === null))
    throw REJECTIONS.version
  const result = validate(pairingRequestRule, body)
  if (!result.ok) throw result.issues.every((issue) => issue.path === 'code') ? REJECTIONS.invalid : REJECTIONS.badKey
  if (!isUsablePublicKey(result.value.credential.publicKey.x)) throw REJECTIONS.badKey
  return result.value
}

export function pairingRoutes({ services, serverId, now, failureCounts }: ApiContext) {
  const counts: FailureCountsOf = failureCounts ?? ((_scope, bounds) => new FailureRateLimit(bounds, now))
  const byAddress = counts('pairing-address', PAIRING_ADDRESS_FAILURES)
  const byCode = counts('pairing-code', PAIRING_CODE_FAILURES)
  /** An address with the code it tried, when it sent one. */
  const codeKey = (address: string, body: unknown) => {
    const code = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).code : undefined
    return typeof code === 'string' ? `${address} ${normalizePairingCode(code).slice(0, 64)}` : undefined
  }
  const refuseIfLimited = async (address: string, triedCode?: string) => {
    const waitMs = Math.max(
      await byAddress.retryAfterMs(address),
      triedCode === undefined ? 0 : await byCode.retryAfterMs(triedCode),
    )
    if (waitMs > 0) throw rateLimited('pairing_rate_limited', 'Too many pairing attempts. Try again later.', waitMs)
  }
  return new Elysia().post(
    PAIRING_PATH,
    async ({ request, server }): Promise<PairingResponse> => {
      const address = remoteAddress(request, server)
      // Before reading anything: a limited address costs no more work.
      await refuseIfLimited(address)
      let triedCode: string | undefined
      try {
        const body = await readJsonBody(request, MAX_AUTH_FRAME_BYTES)
        triedCode = codeKey(address, body)
        // Again after the wait for the body, with the code now known, in the same step as the
        // redemption and the failure count: attempts all in flight together are counted one by one.
        await refuseIfLimited(address, triedCode)
        const pairing = parsePairingRequest(body)
        const outcome = await services.agents.pair(pairing.code, {
          name: pairing.agent.name,
          version: pairing.agent.version,
          platform: pairing.agent.platform,
          installationId: pairing.agent.installationId,
          publicKey: pairing.credential.publicKey.x,
        })
        if (outcome.kind !== 'paired') throw REJECTIONS[outcome.kind]
        // The redemption may have joined the turn's open transaction: the agent is told its
        // credential only once the hub cannot forget it.
        await services.durable()
        return { agentId: outcome.agent.id, keyId: outcome.agent.keyId, serverId, pairedAt: outcome.agent.pairedAt }
      } catch (error) {
        const code = error instanceof ApiError ? error.code : undefined
        if (code !== 'pairing_rate_limited') await byAddress.recordFailure(address)
        // A code that did not work counts against that code too; a malformed request only against the address.
        if (triedCode !== undefined && CODE_REJECTIONS.has(code)) await byCode.recordFailure(triedCode)
        throw error
      }
    },
    { parse: 'none' },
  )
}
