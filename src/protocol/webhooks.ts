// A project's webhooks as applications make and see them (`/v1/projects/:projectId/webhooks`).
import { EVENT_TYPES, type EventType } from './events.ts'
import { array, nullable, object, oneOf, optional, refine, type Rule, string } from './rules.ts'
import { timestamp } from './values.ts'

/** The longest URL a webhook may have. */
export const MAX_WEBHOOK_URL_LENGTH = 2_048

/** A URL the hub can POST to: http or https, with a host, no credentials in it. */
export const webhookUrlRule = refine(string({ min: 1, max: MAX_WEBHOOK_URL_LENGTH }), (text) => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'must be an absolute http:// or https:// URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http:// or https:// URL'
  if (url.username || url.password) return 'must not carry a user name or password'
  return undefined
})

export const createWebhookRule = object({
  url: webhookUrlRule,
  events: array(oneOf(EVENT_TYPES), { min: 1, max: EVENT_TYPES.length, unique: true }),
  description: optional(nullable(string({ max: 500 }))),
})

export interface WebhookView {
  id: string
  url: string
  events: EventType[]
  description: string | null
  createdAt: string
  /** Since when its deliveries fail; null when the last one went through. */
  failingSince: string | null
  /** When it was disabled for failing 5 days; null while enabled. */
  disabledAt: string | null
}

const text = string({ min: 1, max: 2_048 })
const events = array(oneOf(EVENT_TYPES), { min: 1, max: EVENT_TYPES.length })

export const createdWebhookRule = object({
  webhook: object({ id: text, url: text, events, createdAt: timestamp }),
  secret: text,
})
export const webhooksResponseRule: Rule<{ webhooks: WebhookView[] }> = object({
  webhooks: array(
    object({
      id: text,
      url: text,
      events,
      description: nullable(string({ max: 500 })),
      createdAt: timestamp,
      failingSince: nullable(timestamp),
      disabledAt: nullable(timestamp),
    }),
    { max: 10_000 },
  ),
})
