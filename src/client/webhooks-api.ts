// The webhook routes of a project: make, list and delete its webhooks (verifying a delivery is
// `webhooks.ts`).
import type { EventType } from '../protocol/events.ts'
import { createdWebhookRule, createWebhookRule, type WebhookView, webhooksResponseRule } from '../protocol/webhooks.ts'
import type { Connection } from './connection.ts'
import { checked, type RequestOptions } from './request.ts'

/** The project's webhooks (scope webhooks:write). None of these calls is retried: each changes something, once. */
export class WebhooksApi {
  readonly #connection: Connection

  private constructor(connection: Connection) {
    this.#connection = connection
  }

  /** @internal Made by PrintHubClient only: applications reach it as a client's property. */
  static over(connection: Connection): WebhooksApi {
    return new this(connection)
  }

  /**
   * Makes a webhook for these event types; its secret (`whsec_…`) is in this answer only: keep it for verifyWebhook.
   */
  async create(
    input: { url: string; events: EventType[]; description?: string | null },
    options: RequestOptions = {},
  ): Promise<{ webhook: { id: string; url: string; events: EventType[]; createdAt: string }; secret: string }> {
    const body = checked(createWebhookRule, input)
    return this.#connection.send({
      method: 'POST',
      path: this.#connection.projectPath('webhooks'),
      body,
      authenticated: true,
      retryable: false,
      contract: createdWebhookRule,
      signal: options.signal,
    })
  }

  async list(options: RequestOptions = {}): Promise<WebhookView[]> {
    return (
      await this.#connection.send({
        method: 'GET',
        path: this.#connection.projectPath('webhooks'),
        authenticated: true,
        retryable: true,
        contract: webhooksResponseRule,
        signal: options.signal,
      })
    ).webhooks
  }

  /** Deletes it, with its deliveries still waiting; ApiError not_found when the project has none of that ID. */
  async delete(webhookId: string, options: RequestOptions = {}): Promise<void> {
    await this.#connection.send({
      method: 'DELETE',
      path: `${this.#connection.projectPath('webhooks')}/${encodeURIComponent(webhookId)}`,
      authenticated: true,
      retryable: false,
      contract: webhooksResponseRule,
      signal: options.signal,
    })
  }
}
