// The receipt worker's thread (see receipt-images.ts): a document rendered for a printer model (or
// the bytes already rendered for it), read back as that printer would print it, as a PNG.
import type { TaskAnswer } from '../platform/off-thread.ts'
import type { PaperWidth } from '../protocol/document.ts'
import { findProfile } from '../profiles/catalog.ts'
import { previewFor } from '../preview/printer-preview.ts'
import { type RenderRequest, renderRequested } from '../render/request.ts'

/** What the worker draws: a document to render for a printer model, or a job's bytes rendered for it. */
export type ReceiptTask = RenderRequest | { bytes: Uint8Array; profile: string; width: PaperWidth }

const port = globalThis as unknown as {
  onmessage: (event: MessageEvent<{ id: number; input: ReceiptTask }>) => void
  postMessage(message: TaskAnswer<Uint8Array>, transfer?: Transferable[]): void
}

port.onmessage = ({ data: { id, input } }) => {
  try {
    const profile = findProfile(input.profile)
    if (!profile) throw new Error(`no printer profile ${input.profile}`)
    const output = previewFor('bytes' in input ? input.bytes : renderRequested(input), profile, input.width).png()
    port.postMessage({ id, ok: true, output }, [output.buffer])
  } catch (error) {
    port.postMessage({
      id,
      ok: false,
      error: { name: (error as Error).name ?? 'Error', message: String((error as Error).message ?? error) },
    })
  }
}
