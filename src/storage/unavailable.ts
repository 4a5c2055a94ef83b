// A store that cannot be reached now (a cluster's database restarting, its network gone): the change asked may or may
// not have been made, so it is never answered as done. The HTTP edges answer 503 with a time to try again after (an
// application's retry with the same idempotency key finds a job that was made); the CLI says it in words.
export class StoreUnavailableError extends Error {
  constructor(
    /** The store as it may be named (a URL without its password). */
    shown: string,
    cause: unknown,
  ) {
    super(`the database ${shown} cannot be reached now: ${(cause as Error)?.message ?? String(cause)}`, { cause })
    this.name = 'StoreUnavailableError'
  }
}
