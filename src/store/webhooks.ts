// A project's webhooks and their outbox. Each event a webhook wants is queued for it in the event's
// own transaction (events.ts), with its body as it was; the sender (services/webhooks.ts) takes each
// webhook's oldest waiting delivery, so a webhook gets its events in order, and records how each
// attempt went. Rows survive restarts and kill -9: nothing queued is lost.
import type { Database } from 'bun:sqlite'
import { newId } from '../storage/ids.ts'
import {
  deliveryOf,
  type DeliveryRow,
  dueDeliveryOf,
  HEADS_SQL,
  type HeadRow,
  webhookOf as toWebhook,
  type WebhookRow,
} from '../storage/webhook-rows.ts'
import type { DeliveryFailure, DueDelivery, NewWebhook, WebhookRepository } from '../storage/repositories.ts'
import { bound } from '../sqlite/bound.ts'
import type { DeliveryRecord, Webhook } from '../domain/records.ts'

export type { DeliveryFailure, DeliveryRecord, DueDelivery, NewWebhook, Webhook }

export class Webhooks implements WebhookRepository {
  /** Prepared once: it runs with every event of a project that has webhooks. */
  private readonly enqueue
  /**
   * The projects with an enabled webhook: most have none, and their events skip the outbox without
   * a query. Only this process makes, deletes and disables webhooks (the API and the sender).
   */
  private withWebhooks = new Set<string>()

  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {
    this.enqueue = db.query<never, [string, string, number, string, string]>(
      `INSERT INTO webhook_deliveries (webhook_id, message_id, body, next_at, created_at)
       SELECT w.id, ?1, ?2, ?3, ?3 FROM webhooks w INDEXED BY webhooks_by_project
       WHERE w.project_id = ?4 AND w.deleted_at IS NULL AND w.disabled_at IS NULL
         AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = ?5)`,
    )
    this.refresh()
  }

  private refresh(): void {
    this.withWebhooks = new Set(
      this.db
        .query<{ project_id: string }, []>(
          'SELECT DISTINCT project_id FROM webhooks WHERE deleted_at IS NULL AND disabled_at IS NULL',
        )
        .all()
        .map((row) => row.project_id),
    )
  }

  create(projectId: string, { url, events, description, secret }: NewWebhook): Webhook {
    const row = this.db
      .query<WebhookRow, [string, string, string, string, string | null, string, number]>(
        `INSERT INTO webhooks (id, project_id, url, events, description, secret,
          created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(newId('whk'), projectId, url, JSON.stringify([...new Set(events)]), description, secret, this.now())!
    this.withWebhooks.add(projectId)
    return toWebhook(row)
  }

  /** A webhook of any project (the dashboard's view); undefined when deleted or unknown. */
  get(id: string): Webhook | undefined {
    const row = this.db
      .query<WebhookRow, [string]>('SELECT * FROM webhooks WHERE id = ? AND deleted_at IS NULL')
      .get(id)
    return row ? toWebhook(row) : undefined
  }

  /** Every project's webhooks, for the dashboard. */
  all(): Webhook[] {
    return this.db
      .query<WebhookRow, []>('SELECT * FROM webhooks WHERE deleted_at IS NULL ORDER BY created_at, id')
      .all()
      .map(toWebhook)
  }

  /** Queues one delivery for this webhook alone (a test event), behind what it already waits for. */
  queueFor(webhookId: string, messageId: string, body: string): void {
    const now = this.now()
    this.db.run(
      'INSERT INTO webhook_deliveries (webhook_id, message_id, body, next_at, created_at) VALUES (?, ?, ?, ?, ?)',
      [webhookId, messageId, body, now, now],
    )
  }

  /** Enables a disabled webhook again: it is sent what it was sent before, from where it stopped. */
  enable(id: string): boolean {
    const enabled =
      this.db.run(
        `UPDATE webhooks SET disabled_at = NULL, failing_since = NULL WHERE id =
          ? AND deleted_at IS NULL AND disabled_at IS NOT NULL`,
        [id],
      ).changes === 1
    if (enabled)
      this.db.run('UPDATE webhook_deliveries SET next_at = ? WHERE webhook_id = ? AND delivered_at IS NULL', [
        this.now(),
        id,
      ])
    if (enabled) this.refresh()
    return enabled
  }

  list(projectId: string): Webhook[] {
    return this.db
      .query<WebhookRow, [string]>(
        `SELECT * FROM webhooks WHERE project_id = ${bound()} AND deleted_at IS NULL ORDER BY created_at, id`,
      )
      .all(projectId)
      .map(toWebhook)
  }

  /** Deletes the project's webhook (its waiting deliveries are dropped); false when it has none of that ID. */
  delete(projectId: string, id: string): boolean {
    const deleted =
      this.db.run('UPDATE webhooks SET deleted_at = ? WHERE id = ? AND project_id = ? AND deleted_at IS NULL', [
        this.now(),
        id,
        projectId,
      ]).changes === 1
    if (deleted) this.db.run('DELETE FROM webhook_deliveries WHERE webhook_id = ? AND delivered_at IS NULL', [id])
    if (deleted) this.refresh()
    return deleted
  }

  /** Queues the event for every enabled webhook of the project that wants its type (in the open transaction). */
  queue(projectId: string, type: string, messageId: string, body: string): void {
    if (this.withWebhooks.has(projectId)) this.enqueue.run(messageId, body, this.now(), projectId, type)
  }

  /** Whether the project has an enabled webhook (its events then build a delivery body). */
  wanted(projectId: string): boolean {
    return this.withWebhooks.has(projectId)
  }

  /** The oldest waiting delivery of each enabled webhook. */
  heads(): DueDelivery[] {
    return this.db.query<HeadRow, []>(HEADS_SQL).all().map(dueDeliveryOf)
  }

  delivered(deliveryId: number, webhookId: string, status: number): void {
    const now = this.now()
    // Once a delivery (and each failed attempt, below): through statements prepared once.
    this.db
      .query(
        `UPDATE webhook_deliveries SET delivered_at = ?, attempts = attempts + 1,
          last_status = ?, last_error = NULL WHERE id = ?`,
      )
      .run(now, status, deliveryId)
    this.db.query('UPDATE webhooks SET failing_since = NULL WHERE id = ?').run(webhookId)
  }

  /** An attempt failed: tried again at `nextAt`; the webhook is disabled once it has failed since `disableBefore`. */
  failed(
    deliveryId: number,
    webhookId: string,
    { status, error, nextAt, disableBefore }: DeliveryFailure,
  ): { disabled: boolean } {
    const now = this.now()
    this.db
      .query(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ?,
          last_error = ?, next_at = ? WHERE id = ?`,
      )
      .run(status, error.slice(0, 500), nextAt, deliveryId)
    this.db.query('UPDATE webhooks SET failing_since = coalesce(failing_since, ?) WHERE id = ?').run(now, webhookId)
    const disabled =
      this.db
        .query('UPDATE webhooks SET disabled_at = ? WHERE id = ? AND failing_since <= ? AND disabled_at IS NULL')
        .run(now, webhookId, disableBefore).changes === 1
    if (disabled) this.refresh()
    return { disabled }
  }

  /** The webhook's newest deliveries, newest first. */
  deliveries(webhookId: string, limit: number): DeliveryRecord[] {
    return this.db
      .query<DeliveryRow, [string, number]>(
        `SELECT message_id, json_extract(body, '$.type') AS type, attempts,
          last_status, last_error, delivered_at, created_at FROM
          webhook_deliveries WHERE webhook_id = ${bound()} ORDER BY id
          DESC LIMIT ?`,
      )
      .all(webhookId, limit)
      .map(deliveryOf)
  }

  /** Deletes at most `limit` deliveries made before `before` (sent or given up with their webhook). */
  prune(before: number, limit: number): number {
    return this.db.run(
      `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM
        webhook_deliveries WHERE created_at < ? ORDER BY id LIMIT ?)`,
      [before, limit],
    ).changes
  }
}
