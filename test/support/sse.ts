// A Server-Sent Events reader for tests, over a real fetch: frames as the stream sends them.

export interface SseFrame {
  id?: string
  event?: string
  data?: string
  /** Comment lines (`: alive`). */
  comments: string[]
}

export interface SseStream {
  status: number
  headers: Headers
  /** The next frame with data (comments are kept on it); fails after `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseFrame>
  close(): void
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController()
  const response = await fetch(url, { headers, signal: abort.signal })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  const ready: SseFrame[] = []
  let comments: string[] = []
  let waiting: (() => void) | undefined
  let ended = false
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        buffer += decoder.decode(value, { stream: true })
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const frame: SseFrame = { comments }
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim())
            else {
              const colon = line.indexOf(':')
              const field = line.slice(0, colon)
              const value = line.slice(colon + 1).replace(/^ /, '')
              if (field === 'id' || field === 'event') frame[field] = value
              if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`
            }
          }
          if (frame.data !== undefined) {
            ready.push(frame)
            comments = []
          }
        }
        waiting?.()
      }
    } catch {
      // Closed by the test.
    }
    ended = true
    waiting?.()
  })()
  const wait = (timeoutMs: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs)
      waiting = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  return {
    status: response.status,
    headers: response.headers,
    async next(timeoutMs = 5_000) {
      const deadline = performance.now() + timeoutMs
      while (ready.length === 0) {
        if (ended) throw new Error('the stream ended')
        if (performance.now() > deadline) throw new Error(`no event within ${timeoutMs} ms`)
        await wait(deadline - performance.now())
      }
      return ready.shift()!
    },
    close: () => abort.abort(),
  }
}
