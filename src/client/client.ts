// PrintHubClient: the public routes of a printhub, typed, validated before sending, with retries
// where they are safe.
import { DISCOVERY_PATHS, type DiscoveryDocument, discoveryRule, PAIRING_PATH } from '../protocol/discovery.ts'
import { type HealthResult, healthRule } from '../protocol/health.ts'
import {
  type PairingRequest,
  pairingRequestRule,
  type PairingResponse,
  pairingResponseRule,
} from '../protocol/pairing.ts'
import { type PrintHubClientOptions, resolveClientConfig } from './config.ts'
import { Connection } from './connection.ts'
import type { EventStreamOptions, StreamItem } from './events.ts'
import { JobsApi } from './jobs-api.ts'
import { PrintersApi } from './printers-api.ts'
import { checked, type RequestOptions } from './request.ts'
import { realScheduler } from './retry.ts'
import { WebhooksApi } from './webhooks-api.ts'

/** Lets a project view or a test build a client over an existing connection; not part of the options. */
const CONNECTION = Symbol('printhub.client.connection')

export class PrintHubClient {
  /** Job routes of the default project. */
  readonly jobs: JobsApi
  /** The default project's printers. */
  readonly printers: PrintersApi
  /** The default project's webhooks. */
  readonly webhooks: WebhooksApi
  readonly #connection: Connection

  /** Throws ConfigurationError, naming the setting, when an option or environment variable is wrong. */
  constructor(options?: PrintHubClientOptions) {
    const given = (options as { [CONNECTION]?: Connection } | undefined)?.[CONNECTION]
    this.#connection = given ?? new Connection(resolveClientConfig(options), realScheduler)
    this.jobs = JobsApi.over(this.#connection)
    this.printers = PrintersApi.over(this.#connection)
    this.webhooks = WebhooksApi.over(this.#connection)
  }

  /**
   * The project's events as they happen (or from `after`), as an async iterator that reconnects
   * and resumes by itself: every event once, in order; `{ type: 'reset' }` when the point asked
   * for was pruned (list the jobs again).
   */
  events(options: EventStreamOptions = {}): AsyncGenerator<StreamItem> {
    return this.#connection.events(options)
  }

  /** The same client bound to another project; this client's default project does not change. */
  project(projectId: string): PrintHubClient {
    return clientOver(this.#connection.forProject(projectId))
  }

  /** Liveness of the hub itself; says nothing about agents or printers. */
  async health(options: RequestOptions = {}): Promise<HealthResult> {
    return this.#connection.send({
      method: 'GET',
      path: '/health',
      retryable: true,
      contract: healthRule,
      signal: options.signal,
    })
  }

  /** The hub's discovery document (OpenPrinter v1). */
  async discover(options: RequestOptions = {}): Promise<DiscoveryDocument> {
    return this.#connection.send({
      method: 'GET',
      path: DISCOVERY_PATHS[0],
      retryable: true,
      contract: discoveryRule,
      signal: options.signal,
    })
  }

  /** Pairs an agent with a one-time code. Never retried: a code works only once. */
  async pair(request: PairingRequest, options: RequestOptions = {}): Promise<PairingResponse> {
    const body = checked(pairingRequestRule, request)
    return this.#connection.send({
      method: 'POST',
      path: PAIRING_PATH,
      body,
      retryable: false,
      contract: pairingResponseRule,
      signal: options.signal,
    })
  }

  /** What JSON.stringify shows of a client: never the API key. */
  toJSON(): { baseUrl: string; projectId: string | undefined } {
    return this.#connection.describe()
  }
}

export function clientOver(connection: Connection): PrintHubClient {
  return new PrintHubClient({ [CONNECTION]: connection } as PrintHubClientOptions)
}
