// Every project's webhooks, for technicians: how their recent deliveries went, a test event on
// demand, enabling one that was disabled for failing, deleting one. Applications make webhooks with
// the public API; their secrets are never shown here.
import { EVENT_TYPES } from '../events.ts'
import { MAX_WEBHOOK_URL_LENGTH } from '../webhooks.ts'
import { array, type Infer, integer, nullable, object, oneOf, string } from '../rules.ts'
import { shortString, timestamp } from '../values.ts'
import { type AdminOperation, count, json, MAX_LISTED, recordId, text } from './contract.ts'

const webhookFields = {
  id: recordId,
  projectId: recordId,
  url: string({ min: 1, max: MAX_WEBHOOK_URL_LENGTH }),
  events: array(oneOf(EVENT_TYPES), { min: 1, max: EVENT_TYPES.length }),
  description: nullable(string({ max: 500 })),
  createdAt: timestamp,
  /** Since when its deliveries fail; null when the last one went through. */
  failingSince: nullable(timestamp),
  /** When it was disabled for failing too long; null while enabled. */
  disabledAt: nullable(timestamp),
}
export const adminWebhookRule = object(webhookFields)
export type AdminWebhook = Infer<typeof adminWebhookRule>

/** One delivery of an event to a webhook, as it went. */
export const deliveryRule = object({
  messageId: string({ min: 1, max: 256 }),
  /** The event's type (`job.created`, …, or `webhook.test`). */
  type: string({ min: 1, max: 64 }),
  attempts: count,
  /** The last try's HTTP status, or why it got none. */
  lastStatus: nullable(integer({ min: 100, max: 599 })),
  lastError: nullable(text),
  deliveredAt: nullable(timestamp),
  createdAt: timestamp,
})
export type WebhookDelivery = Infer<typeof deliveryRule>

/** A webhook with its project's name and its newest deliveries. */
export const webhookReportRule = object({
  ...webhookFields,
  projectName: shortString,
  deliveries: array(deliveryRule, { max: MAX_LISTED }),
})
export type WebhookReport = Infer<typeof webhookReportRule>

export const webhookOperations: AdminOperation[] = [
  {
    method: 'GET',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: "Every project's webhooks with how they are doing and their newest deliveries",
    role: 'technician',
    answers: { 200: json(object({ webhooks: array(webhookReportRule, { max: MAX_LISTED }) }), 'The webhooks') },
    errors: [],
  },
  {
    method: 'POST',
    path: '/webhooks/:id/test',
    operationId: 'testWebhook',
    summary: 'Send a test event to this webhook alone (not while it is disabled)',
    role: 'technician',
    answers: { 202: json(object({ messageId: string({ min: 1, max: 256 }) }), 'The test event, queued') },
    errors: [404, 409],
  },
  {
    method: 'POST',
    path: '/webhooks/:id/enable',
    operationId: 'enableWebhook',
    summary: 'Enable a webhook disabled for failing: what waited for it is sent at once',
    role: 'technician',
    answers: { 200: json(object({ webhook: adminWebhookRule }), 'The webhook, enabled') },
    errors: [404],
  },
  {
    method: 'DELETE',
    path: '/webhooks/:id',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook',
    role: 'technician',
    answers: { 204: { description: 'Deleted' } },
    errors: [404],
  },
]
