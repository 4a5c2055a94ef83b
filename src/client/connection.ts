// The resolved configuration and the scheduler, held in private fields so that logging a client
// or its parts never shows the API key.
import type { Rule } from '../protocol/rules.ts'
import { checkProjectId, type ClientConfig } from './config.ts'
import { ConfigurationError } from './errors.ts'
import { type EventStreamOptions, eventStream, type StreamItem } from './events.ts'
import { call } from './request.ts'
import type { Scheduler } from './retry.ts'

export interface Send<T> {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  body?: unknown
  /** Sends the project API key; the call fails before any request when there is none. */
  authenticated?: boolean
  retryable: boolean
  contract: Rule<T>
  signal?: AbortSignal
}

export class Connection {
  readonly #config: Readonly<ClientConfig>
  readonly #scheduler: Scheduler

  constructor(config: Readonly<ClientConfig>, scheduler: Scheduler) {
    this.#config = config
    this.#scheduler = scheduler
  }

  send<T>({ authenticated, ...request }: Send<T>): Promise<T> {
    const apiKey = authenticated ? this.#config.apiKey : undefined
    if (authenticated && apiKey === undefined)
      throw new ConfigurationError('apiKey', 'is required for job routes: pass it or set PRINTHUB_API_KEY')
    return call(this.#config, this.#scheduler, { ...request, apiKey })
  }

  /** The jobs route of the configured project. */
  jobsPath(): string {
    return this.projectPath('jobs')
  }

  /** A route of the configured project: `jobs`, `printers`, `events`. */
  projectPath(route: string): string {
    const projectId = this.#config.projectId
    if (projectId === undefined)
      throw new ConfigurationError(
        'projectId',
        'is required for project routes: pass it, set PRINTHUB_PROJECT_ID, or use client.project(id)',
      )
    return `/v1/projects/${encodeURIComponent(projectId)}/${route}`
  }

  /** The project's event stream (see events.ts). */
  events(options: EventStreamOptions): AsyncGenerator<StreamItem> {
    const apiKey = this.#config.apiKey
    if (apiKey === undefined)
      throw new ConfigurationError('apiKey', 'is required for project routes: pass it or set PRINTHUB_API_KEY')
    return eventStream(this.#config, this.#scheduler, { path: this.projectPath('events'), apiKey }, options)
  }

  forProject(projectId: string): Connection {
    return new Connection({ ...this.#config, projectId: checkProjectId(projectId, 'projectId') }, this.#scheduler)
  }

  /** What printing a client shows: never the API key. */
  describe(): { baseUrl: string; projectId: string | undefined } {
    return { baseUrl: this.#config.baseUrl, projectId: this.#config.projectId }
  }
}
