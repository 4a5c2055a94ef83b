// The renderer's error: one class, the `render.*` codes of the failure family (protocol/failures.ts).
import type { FailureCode } from '../protocol/failures.ts'

export type RenderErrorCode = Extract<FailureCode, `render.${string}`>

/**
 * A document that cannot be printed as it is on this printer. Messages name the section and the
 * problem, never the document's text. `retryable` is false for every code today: the same
 * document renders the same way on every attempt.
 */
export class RenderError extends Error {
  override readonly name = 'RenderError'

  constructor(
    readonly code: RenderErrorCode,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message)
  }
}
