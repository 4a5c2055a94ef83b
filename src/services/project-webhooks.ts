// Projects' webhooks as every edge makes and changes them: made by an application (the public API)
// with a URL and the event types it wants, its secret shown once; listed with how their deliveries
// went, sent a test event, enabled again after failing, deleted (the admin API; an application
// deletes its own). Each change is written to the audit log with it; the sender (webhooks.ts) is
// told at once when something waits to be sent.
import type { DeliveryRecord, Webhook } from '../domain/records.ts'
import { WEBHOOK_SECRET_PREFIX } from '../protocol/webhook-signature.ts'
import type { UnitRunner } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'
import type { Actor } from './actor.ts'
import { recordedChange } from './audit.ts'

/** The type of the event a technician sends from the dashboard to see a webhook work. */
export const WEBHOOK_TEST_EVENT = 'webhook.test'
/** How many of each webhook's deliveries the dashboard shows, newest first. */
export const RECENT_DELIVERIES = 10

/** A new webhook secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')
}

/** A webhook as the dashboard shows it, with its project's name and recent deliveries: never its secret. */
export interface WebhookReport extends Webhook {
  projectName: string
  deliveries: DeliveryRecord[]
}

/** What an application asks for: where to, which event types, and a label. */
export interface NewWebhook {
  url: string
  events: readonly string[]
  description: string | null
}

export type WebhookTestOutcome = { kind: 'queued'; messageId: string } | { kind: 'unknown' } | { kind: 'disabled' }

export class WebhookService {
  constructor(
    private readonly units: UnitRunner,
    private readonly now: () => number,
    /** Tells the running hub's sender that a delivery waits (none from the CLI: its timer finds it). */
    private readonly waiting: () => void = () => {},
  ) {}

  /** A project's webhooks, oldest first (never their secrets). */
  list(projectId: string): Promise<Webhook[]> {
    return this.units.read((db) => db.webhooks.list(projectId))
  }

  /** A webhook of any project; undefined when deleted or unknown. */
  get(id: string): Promise<Webhook | undefined> {
    return this.units.read((db) => db.webhooks.get(id))
  }

  /** Every project's webhooks, with their project's name and recent deliveries. */
  reports(): Promise<WebhookReport[]> {
    return this.units.read(function* (db): Unit<WebhookReport[]> {
      const projects = new Map((yield* db.projects.list()).map((project) => [project.id, project.name]))
      const reports: WebhookReport[] = []
      for (const webhook of yield* db.webhooks.all())
        reports.push({
          ...webhook,
          projectName: projects.get(webhook.projectId) ?? webhook.projectId,
          deliveries: yield* db.webhooks.deliveries(webhook.id, RECENT_DELIVERIES),
        })
      return reports
    })
  }

  /** A new webhook of the project, with its secret (shown this once). */
  async create(actor: Actor, projectId: string, asked: NewWebhook): Promise<{ webhook: Webhook; secret: string }> {
    const secret = newWebhookSecret()
    const webhook = await this.units.write(function* (db): Unit<Webhook> {
      const made = yield* db.webhooks.create(projectId, { ...asked, secret })
      yield* recordedChange(db, { actor, action: 'webhooks.create', target: made.id })
      return made
    })
    return { webhook, secret }
  }

  /**
   * Deletes a webhook (its waiting deliveries are dropped); with `projectId`, only that project's
   * (an application's own). False when there is no such webhook.
   */
  delete(actor: Actor, webhookId: string, projectId?: string): Promise<boolean> {
    return this.units.write(function* (db): Unit<boolean> {
      const webhook = yield* db.webhooks.get(webhookId)
      if (!webhook || (projectId !== undefined && webhook.projectId !== projectId)) return false
      if (!(yield* db.webhooks.delete(webhook.projectId, webhook.id))) return false
      yield* recordedChange(db, { actor, action: 'webhooks.delete', target: webhook.id })
      return true
    })
  }

  /**
   * Queues a test event for this webhook alone (`webhook.test`, signed as any other, in order behind
   * what it waits for), sent when due; its delivery shows in the webhook's recent ones.
   */
  async sendTest(actor: Actor, webhookId: string): Promise<WebhookTestOutcome> {
    const now = this.now()
    const messageId = `msg_test_${now.toString(36)}${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`
    const body = JSON.stringify({
      type: WEBHOOK_TEST_EVENT,
      timestamp: new Date(now).toISOString(),
      data: { webhookId, message: 'A test event sent from the printhub dashboard.' },
    })
    const outcome = await this.units.write(function* (db): Unit<WebhookTestOutcome> {
      const webhook = yield* db.webhooks.get(webhookId)
      if (!webhook) return { kind: 'unknown' }
      if (webhook.disabledAt) return { kind: 'disabled' }
      yield* db.webhooks.queueFor(webhookId, messageId, body)
      yield* recordedChange(db, { actor, action: 'webhooks.test', target: webhookId })
      return { kind: 'queued', messageId }
    })
    if (outcome.kind === 'queued') this.waiting()
    return outcome
  }

  /** Enables a webhook that was disabled for failing; what waits for it is sent at once. Undefined when unknown. */
  async enable(actor: Actor, webhookId: string): Promise<Webhook | undefined> {
    const outcome = await this.units.write(function* (db): Unit<{ webhook: Webhook; enabled: boolean } | undefined> {
      if (!(yield* db.webhooks.get(webhookId))) return undefined
      const enabled = yield* db.webhooks.enable(webhookId)
      if (enabled) yield* recordedChange(db, { actor, action: 'webhooks.enable', target: webhookId })
      return { webhook: (yield* db.webhooks.get(webhookId))!, enabled }
    })
    if (outcome?.enabled) this.waiting()
    return outcome?.webhook
  }
}
