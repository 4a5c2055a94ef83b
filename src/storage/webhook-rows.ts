// Webhooks and their deliveries as both stores' rows hold them, and the records made of them (rows.ts says how
// numbers, times and JSON come from each store).
import type { DeliveryRecord, Webhook } from '../domain/records.ts'
import { type Big, int, json, time, timeOrNull } from './rows.ts'
import type { DueDelivery } from './repositories.ts'

export interface WebhookRow {
  id: string
  project_id: string
  url: string
  /** The event types it wants: JSON text (SQLite) or parsed (PostgreSQL). */
  events: string | string[]
  description: string | null
  secret: string
  created_at: Big
  failing_since: Big | null
  disabled_at: Big | null
}

export const webhookOf = (row: WebhookRow): Webhook => ({
  id: row.id,
  projectId: row.project_id,
  url: row.url,
  // Written only as checked when the webhook was made: the events it names.
  events: json<Webhook['events']>(row.events as string),
  description: row.description,
  createdAt: time(row.created_at),
  failingSince: timeOrNull(row.failing_since),
  disabledAt: timeOrNull(row.disabled_at),
})

export interface DeliveryRow {
  message_id: string
  type: string
  attempts: number
  last_status: number | null
  last_error: string | null
  delivered_at: Big | null
  created_at: Big
}

export const deliveryOf = (row: DeliveryRow): DeliveryRecord => ({
  messageId: row.message_id,
  type: row.type,
  attempts: int(row.attempts),
  lastStatus: row.last_status,
  lastError: row.last_error,
  deliveredAt: timeOrNull(row.delivered_at),
  createdAt: time(row.created_at),
})

/** The oldest waiting delivery of each enabled webhook (the sender's outbox), in both stores' SQL. */
export const HEADS_SQL = `SELECT d.id, d.webhook_id, w.url, w.secret, d.message_id, d.body, d.attempts, d.next_at,
    w.failing_since
  FROM webhooks w JOIN webhook_deliveries d
    ON d.id = (SELECT min(id) FROM webhook_deliveries WHERE webhook_id = w.id AND delivered_at IS NULL)
  WHERE w.deleted_at IS NULL AND w.disabled_at IS NULL`

/** A row of HEADS_SQL. */
export interface HeadRow {
  id: Big
  webhook_id: string
  url: string
  secret: string
  message_id: string
  body: string
  attempts: number
  next_at: Big
  failing_since: Big | null
}

export const dueDeliveryOf = (row: HeadRow): DueDelivery => ({
  id: int(row.id),
  webhookId: row.webhook_id,
  url: row.url,
  secret: row.secret,
  messageId: row.message_id,
  body: row.body,
  attempts: row.attempts,
  nextAt: int(row.next_at),
  failingSince: row.failing_since === null ? null : int(row.failing_since),
})
