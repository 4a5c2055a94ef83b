// Projects' webhooks on PostgreSQL: the same records and rules as the SQLite store's (store/webhooks.ts), for what
// people change of them. A webhook's events are a jsonb array.
import type { SQL } from 'bun'
import type { DeliveryRecord, Webhook } from '../domain/records.ts'
import { newId } from '../storage/ids.ts'
import type { DeliveryFailure, DueDelivery, NewWebhook, WebhookRepository } from '../storage/repositories.ts'
import {
  deliveryOf,
  type DeliveryRow,
  dueDeliveryOf,
  HEADS_SQL,
  type HeadRow,
  webhookOf,
  type WebhookRow,
} from '../storage/webhook-rows.ts'

const COLUMNS = 'id, project_id, url, events, description, secret, created_at, failing_since, disabled_at'

export class PgWebhooks implements WebhookRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  private get columns() {
    return this.sql.unsafe(COLUMNS)
  }

  async create(projectId: string, { url, events, description, secret }: NewWebhook): Promise<Webhook> {
    const [row] = await this.sql<WebhookRow[]>`INSERT INTO webhooks
        (id, project_id, url, events, description, secret, created_at)
      VALUES (${newId('whk')}, ${projectId}, ${url}, ${JSON.stringify([...new Set(events)])}::text::jsonb,
        ${description}, ${secret}, ${this.now()})
      RETURNING ${this.columns}`
    return webhookOf(row!)
  }

  async get(id: string): Promise<Webhook | undefined> {
    const [row] = await this.sql<WebhookRow[]>`SELECT ${this.columns} FROM webhooks
      WHERE id = ${id} AND deleted_at IS NULL`
    return row ? webhookOf(row) : undefined
  }

  async all(): Promise<Webhook[]> {
    const rows = await this.sql<WebhookRow[]>`SELECT ${this.columns} FROM webhooks
      WHERE deleted_at IS NULL ORDER BY created_at, id`
    return rows.map(webhookOf)
  }

  async list(projectId: string): Promise<Webhook[]> {
    const rows = await this.sql<WebhookRow[]>`SELECT ${this.columns} FROM webhooks
      WHERE project_id = ${projectId} AND deleted_at IS NULL ORDER BY created_at, id`
    return rows.map(webhookOf)
  }

  async queueFor(webhookId: string, messageId: string, body: string): Promise<void> {
    const now = this.now()
    await this.sql`INSERT INTO webhook_deliveries (webhook_id, message_id, body, next_at, created_at)
      VALUES (${webhookId}, ${messageId}, ${body}, ${now}, ${now})`
  }

  async enable(id: string): Promise<boolean> {
    const enabled = await this.sql`UPDATE webhooks SET disabled_at = NULL, failing_since = NULL
      WHERE id = ${id} AND deleted_at IS NULL AND disabled_at IS NOT NULL RETURNING id`
    if (enabled.length !== 1) return false
    await this.sql`UPDATE webhook_deliveries SET next_at = ${this.now()}
      WHERE webhook_id = ${id} AND delivered_at IS NULL`
    return true
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    const deleted = await this.sql`UPDATE webhooks SET deleted_at = ${this.now()}
      WHERE id = ${id} AND project_id = ${projectId} AND deleted_at IS NULL RETURNING id`
    if (deleted.length !== 1) return false
    await this.sql`DELETE FROM webhook_deliveries WHERE webhook_id = ${id} AND delivered_at IS NULL`
    return true
  }

  async deliveries(webhookId: string, limit: number): Promise<DeliveryRecord[]> {
    const rows = await this.sql<DeliveryRow[]>`SELECT message_id, (body::jsonb) ->> 'type' AS type, attempts,
        last_status, last_error, delivered_at, created_at
      FROM webhook_deliveries WHERE webhook_id = ${webhookId} ORDER BY id DESC LIMIT ${limit}`
    return rows.map(deliveryOf)
  }

  async prune(before: number, limit: number): Promise<number> {
    const gone = await this.sql`DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries
        WHERE created_at < ${before} ORDER BY id LIMIT ${limit})
      RETURNING id`
    return gone.length
  }

  async heads(): Promise<DueDelivery[]> {
    return (await this.sql.unsafe<HeadRow[]>(HEADS_SQL)).map(dueDeliveryOf)
  }

  async delivered(deliveryId: number, webhookId: string, status: number): Promise<void> {
    await this.sql`UPDATE webhook_deliveries SET delivered_at = ${this.now()}, attempts = attempts + 1,
      last_status = ${status}, last_error = NULL WHERE id = ${deliveryId} AND delivered_at IS NULL`
    await this.sql`UPDATE webhooks SET failing_since = NULL WHERE id = ${webhookId}`
  }

  async failed(
    deliveryId: number,
    webhookId: string,
    { status, error, nextAt, disableBefore }: DeliveryFailure,
  ): Promise<{ disabled: boolean }> {
    const now = this.now()
    // A delivery another node got through meanwhile is not failing.
    const changed = await this.sql`UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ${status},
        last_error = ${error.slice(0, 500)}, next_at = ${nextAt}
      WHERE id = ${deliveryId} AND delivered_at IS NULL RETURNING id`
    if (changed.length === 0) return { disabled: false }
    await this.sql`UPDATE webhooks SET failing_since = coalesce(failing_since, ${now}) WHERE id = ${webhookId}`
    const disabled = await this.sql`UPDATE webhooks SET disabled_at = ${now}
      WHERE id = ${webhookId} AND failing_since <= ${disableBefore} AND disabled_at IS NULL RETURNING id`
    return { disabled: disabled.length === 1 }
  }
}
