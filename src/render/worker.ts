// The render worker's thread (see render/off-thread-render.ts): renders one document at a time.
import type { TaskAnswer } from '../platform/off-thread.ts'
import { RenderError } from './errors.ts'
import { type RenderRequest, renderRequested } from './request.ts'

const port = globalThis as unknown as {
  onmessage: (event: MessageEvent<{ id: number; input: RenderRequest }>) => void
  postMessage(message: TaskAnswer<Uint8Array>, transfer?: Transferable[]): void
}

port.onmessage = ({ data: { id, input } }) => {
  try {
    const output = renderRequested(input)
    port.postMessage({ id, ok: true, output }, [output.buffer])
  } catch (error) {
    const answer =
      error instanceof RenderError
        ? { name: error.name, message: error.message, code: error.code, retryable: error.retryable }
        : { name: (error as Error).name ?? 'Error', message: String((error as Error).message ?? error) }
    port.postMessage({ id, ok: false, error: answer })
  }
}
