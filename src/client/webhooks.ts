// Verifying webhook deliveries in an application's receiver (Standard Webhooks): the signature
// against the secret shown when the webhook was made, and the time, before the body is trusted.
import { checkWebhook } from '../protocol/webhook-signature.ts'
import { WebhookVerificationError } from './errors.ts'

/** The headers of the request the receiver got: a Fetch `Headers`, or Node's header object. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

/** A delivery's body: what happened (an event type), when, and the event. */
export interface WebhookDelivery {
  type: string
  timestamp: string
  data: unknown
}

/**
 * Verifies a delivery and returns its body; throws WebhookVerificationError when the signature or
 * the time is not right. `body` is the request's raw text, exactly as it came (not re-serialised).
 */
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string,
  nowMs = Date.now(),
): Promise<WebhookDelivery> {
  const header = (name: string): string | undefined => {
    if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
    const value = Object.entries(headers as Record<string, string | string[] | undefined>).find(
      ([key]) => key.toLowerCase() === name,
    )?.[1]
    return Array.isArray(value) ? value.join(' ') : value
  }
  const checked = await checkWebhook(secret, header, body, nowMs)
  if (!checked.ok) throw new WebhookVerificationError(checked.refusal)
  return JSON.parse(body) as WebhookDelivery
}
