// The renderer's error family: one class, one closed set of machine codes.

export type RenderErrorCode =
  | 'render.profile_unknown'
  | 'render.width_unsupported'
  | 'render.unsupported_character'
  | 'render.qr_too_long'
  | 'render.barcode_unsupported'
  | 'render.barcode_invalid'
  | 'render.barcode_too_wide'
  | 'render.image_invalid'

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
