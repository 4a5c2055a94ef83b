// Sends the webhooks' outbox (store/webhooks.ts): each webhook's oldest waiting delivery, one at a
// time, so it gets its events in order. A POST signed as Standard Webhooks define (`webhook-id`
// stable across retries, `webhook-timestamp`, `webhook-signature`), 10 s at most, redirects not
// followed; anything but a 2xx is tried again on Standard Webhooks' schedule (5 s, 5 min, 30 min,
// 2 h, 5 h, 10 h, 10 h, then every 10 h), and a webhook that has failed for 5 days is disabled. The
// hub's workers look at the outbox every second and at each event (workers/hub-workers.ts). On a cluster, a
// webhook's deliveries are sent by one node at a time: the node claims the webhook first (a lease), so a webhook
// still gets its events in order, each once while its nodes live (at least once if one dies mid-send).
import { WEBHOOK_HEADERS, webhookSignature } from '../protocol/webhook-signature.ts'
import type { Logger } from '../platform/log.ts'
import type { DueDelivery, UnitRunner } from '../storage/repositories.ts'
import type { EventSignal } from './project-events.ts'

export type { WebhookReport } from './project-webhooks.ts'

export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const
export const DELIVERY_TIMEOUT_MS = 10_000
export const DISABLE_AFTER_MS = 5 * 86_400_000

/** Where the sender finds its outbox, and hears of new events. */
export interface OutboxParts {
  units: UnitRunner
  events: EventSignal
  /** Whether a project has an enabled webhook (its events have deliveries to send); by default, any may. */
  wanted?: (projectId: string) => boolean
  /**
   * Claims a webhook for this sender while it sends one delivery (a cluster's lease); what it resolves to gives the
   * claim up; undefined while another node has it. By default every webhook is this sender's.
   */
  claim?: (webhookId: string) => Promise<(() => Promise<void>) | undefined>
}

export class WebhookSender {
  private readonly sending = new Set<string>()
  private readonly stopping = new AbortController()
  private readonly units: UnitRunner

  constructor(
    private readonly parts: OutboxParts,
    private readonly options: { now: () => number; log?: Logger; fetch?: typeof fetch },
  ) {
    this.units = parts.units
  }

  /**
   * Calls `news` at each event of a project that has a webhook (only those have deliveries to send: the others' events
   * cost no query here); what it returns stops listening.
   */
  listen(news: () => void): () => void {
    return this.parts.events.listen((projectId) => {
      if (this.parts.wanted?.(projectId) ?? true) news()
    })
  }

  /** Sends nothing more; deliveries under way are given up (sent again at the next start). */
  stop(): void {
    this.stopping.abort()
  }

  /** Sends every webhook's head delivery that is due and not already on its way. */
  tick(): void {
    if (this.stopping.signal.aborted) return
    void this.units
      .read((db) => db.webhooks.heads())
      .then(
        (heads) => {
          const now = this.options.now()
          for (const head of heads) if (!this.sending.has(head.webhookId) && head.nextAt <= now) void this.claimed(head)
        },
        // The store away: the next look (every second) tries again.
        () => {},
      )
  }

  /** Sends `head` once its webhook is this sender's; a webhook another node sends now is left to it. */
  private async claimed(head: DueDelivery): Promise<void> {
    this.sending.add(head.webhookId)
    let release: (() => Promise<void>) | undefined
    let sent = false
    try {
      if (this.parts.claim) {
        release = await this.parts.claim(head.webhookId)
        // Read again once claimed: the node that had it may have sent this one meanwhile.
        const now = release && (await this.units.read((db) => db.webhooks.heads()))
        const current = now?.find((due) => due.webhookId === head.webhookId)
        if (current && current.nextAt <= this.options.now()) sent = await this.send(current)
      } else sent = await this.send(head)
    } catch (error) {
      this.options.log?.warn('a webhook delivery could not be recorded; it is sent again', {
        webhook: head.webhookId,
        delivery: head.messageId,
        error: String(error),
      })
    } finally {
      // Given up before this sender looks at the webhook again: never two of its deliveries on their way at once.
      await release?.().catch(() => {})
      this.sending.delete(head.webhookId)
    }
    // In order: the next one of this webhook right after a success.
    if (sent) this.tick()
  }

  /** Sends one delivery and records how it went; whether it went through. */
  private async send(head: DueDelivery): Promise<boolean> {
    let outcome: { status: number | null; error?: string }
    try {
      const timestamp = Math.floor(this.options.now() / 1000)
      const signature = await webhookSignature(head.secret, head.messageId, timestamp, head.body)
      const response = await (this.options.fetch ?? fetch)(head.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'printhub-webhooks',
          [WEBHOOK_HEADERS.id]: head.messageId,
          [WEBHOOK_HEADERS.timestamp]: String(timestamp),
          [WEBHOOK_HEADERS.signature]: signature,
        },
        body: head.body,
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(DELIVERY_TIMEOUT_MS), this.stopping.signal]),
      })
      // Only the status counts: the body is not read.
      await response.body?.cancel().catch(() => {})
      outcome =
        response.status >= 200 && response.status < 300
          ? { status: response.status }
          : { status: response.status, error: `answered ${response.status}` }
    } catch (error) {
      outcome = {
        status: null,
        error:
          (error as Error).name === 'TimeoutError'
            ? `no answer within ${DELIVERY_TIMEOUT_MS} ms`
            : `could not be reached (${(error as Error).message})`,
      }
    }
    {
      if (this.stopping.signal.aborted) return false
      const now = this.options.now()
      if (outcome.error === undefined)
        await this.units.write((db) => db.webhooks.delivered(head.id, head.webhookId, outcome.status!))
      else {
        const retryIn = RETRY_SCHEDULE_MS[Math.min(head.attempts, RETRY_SCHEDULE_MS.length - 1)]!
        const { disabled } = await this.units.write((db) =>
          db.webhooks.failed(head.id, head.webhookId, {
            status: outcome.status,
            error: outcome.error!,
            nextAt: now + retryIn,
            disableBefore: now - DISABLE_AFTER_MS,
          }),
        )
        const fields = { webhook: head.webhookId, delivery: head.messageId, attempt: head.attempts + 1 }
        if (disabled)
          this.options.log?.warn(
            `webhook disabled: its deliveries have failed for ${DISABLE_AFTER_MS / 86_400_000} days (${outcome.error})`,
            fields,
          )
        else
          this.options.log?.info(
            `a webhook delivery ${outcome.error}; tried again in ${Math.round(retryIn / 1000)} s`,
            fields,
            { limit: `webhook ${head.webhookId}` },
          )
      }
    }
    return outcome.error === undefined
  }
}
