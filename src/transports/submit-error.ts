/** A printer did not take a job; `code` and `retryable` go into the agent's job report. */
export class SubmitError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message)
  }
}
