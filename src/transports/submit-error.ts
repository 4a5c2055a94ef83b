import type { FailureCode } from '../protocol/failures.ts'

/** A printer did not take a job; `code` and `retryable` go into the agent's job report. */
export class SubmitError extends Error {
  constructor(
    readonly code: FailureCode | 'cancelled',
    message: string,
    readonly retryable: boolean,
  ) {
    super(message)
  }
}

/** The job was cancelled before or while it was written. */
export const cancelled = (): SubmitError => new SubmitError('cancelled', 'The job was cancelled.', false)
