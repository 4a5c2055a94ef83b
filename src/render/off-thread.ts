// Renders a job without holding the event loop: a document as light as most receipts (no image,
// a few codes, short text) is rendered at once, which costs well under a millisecond; anything
// heavier goes to the render worker (render/worker.ts), one at a time, within RENDER_BUDGET_MS.
import { OffThread, OffThreadTimeout } from '../platform/off-thread.ts'
import { documentCost } from '../protocol/document-cost.ts'
import type { PrintDocument } from '../protocol/document.ts'
import { RenderError, type RenderErrorCode } from './errors.ts'
import type { RenderRequest } from './request.ts'

/** The longest one document may take to render (the largest a document may be takes about a second on a Pi). */
export const RENDER_BUDGET_MS = 20_000

/** Rendered at once, on the caller's thread: no image, at most this many codes and characters. */
const LIGHT = { codes: 4, textCharacters: 8_192 } as const

export function isLight(document: PrintDocument): boolean {
  const cost = documentCost(document)
  return cost.imagePixels === 0 && cost.codes <= LIGHT.codes && cost.textCharacters <= LIGHT.textCharacters
}

/** The worker's module: embedded in the compiled executable (scripts/build.ts), beside this file in a checkout. */
function workerScript(): URL {
  return Bun.main.startsWith('/$bunfs/')
    ? new URL('file:///$bunfs/root/render/worker.ts')
    : new URL('./worker.ts', import.meta.url)
}

function asRenderError(error: { name: string; message: string; [more: string]: unknown }): Error {
  if (error.name === 'RenderError')
    return new RenderError(error.code as RenderErrorCode, error.message, error.retryable as boolean)
  return new RenderError('render.failed', `the renderer failed: ${error.message}`, false)
}

let worker: OffThread<RenderRequest, Uint8Array> | undefined

/**
 * The renderer on this thread, loaded with the first light document: a hub that has printed
 * nothing neither reads nor holds it, nor the image decoders it brings (docs/performance.md).
 */
let renderer: Promise<typeof import('./request.ts')> | undefined

/** For tests: a render worker with another budget. */
export function renderWorker(budgetMs = RENDER_BUDGET_MS): OffThread<RenderRequest, Uint8Array> {
  return new OffThread(workerScript(), budgetMs, asRenderError)
}

/** Renders the document for the printer: at once when it is light, else in the worker. Rejects with a RenderError. */
export async function renderOffThread(
  request: RenderRequest,
  pool?: OffThread<RenderRequest, Uint8Array>,
): Promise<Uint8Array> {
  if (!pool && isLight(request.document)) return (await (renderer ??= import('./request.ts'))).renderRequested(request)
  worker ??= renderWorker()
  try {
    return await (pool ?? worker).run(request)
  } catch (error) {
    if (error instanceof RenderError) throw error
    if (error instanceof OffThreadTimeout)
      throw new RenderError('render.failed', `rendering ${error.message}: the document is too costly to print`, false)
    throw new RenderError('render.failed', `the renderer failed: ${(error as Error).message}`, false)
  }
}
