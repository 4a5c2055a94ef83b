// PrintHubClient: the public routes of a printhub, typed, validated before sending, with retries
// where they are safe.
import { DISCOVERY_PATHS, type DiscoveryDocument, discoveryRule, PAIRING_PATH } from '../protocol/discovery.ts'
import { type HealthResult, healthRule } from '../protocol/health.ts'
import { type CreateJobResponse, createJobResponseRule, isJobState, JOB_STATES, type JobState, type ListJobsResponse, listJobsResponseRule } from '../protocol/job.ts'
import { type CreateJobInput, createJobRule } from '../protocol/job-request.ts'
import { MAX_FRAME_BYTES } from '../protocol/limits.ts'
import { type PairingRequest, pairingRequestRule, type PairingResponse, pairingResponseRule } from '../protocol/pairing.ts'
import { fitsInOneFrame } from '../protocol/print-job-frame.ts'
import { type Rule, validate } from '../protocol/rules.ts'
import { type PrintHubClientOptions, resolveClientConfig } from './config.ts'
import { Connection } from './connection.ts'
import { ValidationError } from './errors.ts'
import { realScheduler } from './retry.ts'

export interface RequestOptions {
  /** Cancels the request in flight and any wait before a retry, with the signal's reason. */
  signal?: AbortSignal
}

/** The input as the service's own rules accept it, or a ValidationError naming each field. */
function checked<T>(rule: Rule<T>, value: unknown): T {
  const result = validate(rule, value)
  if (!result.ok) throw new ValidationError(result.issues)
  return result.value
}

/** The job routes of the client's project. */
export class JobsApi {
  readonly #connection: Connection

  constructor(connection: Connection) {
    this.#connection = connection
  }

  /**
   * Submits a job. Retries reuse the same idempotency key, so they can never make a second job:
   * the answer to a repeated key is the existing job with `duplicate: true`.
   */
  async create(input: CreateJobInput, options: RequestOptions = {}): Promise<CreateJobResponse> {
    const job = checked(createJobRule, input)
    if (!fitsInOneFrame(job.document, job.metadata)) {
      throw new ValidationError([{ path: 'document', message: `does not fit in one ${MAX_FRAME_BYTES}-byte delivery frame` }])
    }
    const path = this.#connection.jobsPath()
    return this.#connection.send({ method: 'POST', path, body: job, authenticated: true, retryable: true, contract: createJobResponseRule, signal: options.signal })
  }

  /** The newest 100 jobs of the project, newest first; with `state`, only jobs in that state. */
  async list(filter: { state?: JobState } = {}, options: RequestOptions = {}): Promise<ListJobsResponse> {
    if (filter.state !== undefined && !isJobState(filter.state)) throw new ValidationError([{ path: 'state', message: `must be one of ${JOB_STATES.join(', ')}` }])
    const path = this.#connection.jobsPath() + (filter.state === undefined ? '' : `?state=${filter.state}`)
    return this.#connection.send({ method: 'GET', path, authenticated: true, retryable: true, contract: listJobsResponseRule, signal: options.signal })
  }
}

/** Lets a project view or a test build a client over an existing connection; not part of the options. */
const CONNECTION = Symbol('printhub.client.connection')

export class PrintHubClient {
  /** Job routes of the default project. */
  readonly jobs: JobsApi
  readonly #connection: Connection

  /** Throws ConfigurationError, naming the setting, when an option or environment variable is wrong. */
  constructor(options?: PrintHubClientOptions) {
    const given = (options as { [CONNECTION]?: Connection } | undefined)?.[CONNECTION]
    this.#connection = given ?? new Connection(resolveClientConfig(options), realScheduler)
    this.jobs = new JobsApi(this.#connection)
  }

  /** The same client bound to another project; this client's default project does not change. */
  project(projectId: string): PrintHubClient {
    return clientOver(this.#connection.forProject(projectId))
  }

  /** Liveness of the hub itself; says nothing about agents or printers. */
  async health(options: RequestOptions = {}): Promise<HealthResult> {
    return this.#connection.send({ method: 'GET', path: '/health', retryable: true, contract: healthRule, signal: options.signal })
  }

  /** The hub's discovery document (OpenPrinter v1). */
  async discover(options: RequestOptions = {}): Promise<DiscoveryDocument> {
    return this.#connection.send({ method: 'GET', path: DISCOVERY_PATHS[0], retryable: true, contract: discoveryRule, signal: options.signal })
  }

  /** Pairs an agent with a one-time code. Never retried: a code works only once. */
  async pair(request: PairingRequest, options: RequestOptions = {}): Promise<PairingResponse> {
    const body = checked(pairingRequestRule, request)
    return this.#connection.send({ method: 'POST', path: PAIRING_PATH, body, retryable: false, contract: pairingResponseRule, signal: options.signal })
  }

  /** What JSON.stringify shows of a client: never the API key. */
  toJSON(): { baseUrl: string; projectId: string | undefined } {
    return this.#connection.describe()
  }
}

export function clientOver(connection: Connection): PrintHubClient {
  return new PrintHubClient({ [CONNECTION]: connection } as PrintHubClientOptions)
}
