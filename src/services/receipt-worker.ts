// The receipt worker's thread (see receipt-image.ts): a document rendered for a printer model,
// then read back as that printer would print it, as a PNG.
import type { TaskAnswer } from '../platform/off-thread.ts'
import { findProfile } from '../profiles/catalog.ts'
import { previewFor } from '../preview/printer-preview.ts'
import { type RenderRequest, renderRequested } from '../render/request.ts'

const port = globalThis as unknown as { onmessage: (event: MessageEvent<{ id: number; input: RenderRequest }>) => void; postMessage(message: TaskAnswer<Uint8Array>, transfer?: Transferable[]): void }

port.onmessage = ({ data: { id, input } }) => {
  try {
    const output = previewFor(renderRequested(input), findProfile(input.profile)!, input.width).png()
    port.postMessage({ id, ok: true, output }, [output.buffer])
  } catch (error) {
    port.postMessage({ id, ok: false, error: { name: (error as Error).name ?? 'Error', message: String((error as Error).message ?? error) } })
  }
}
