// The project's event stream for the client: an async iterator over the Server-Sent Events of
// `GET /v1/projects/:projectId/events`. After a dropped connection (or a hub that restarted) it
// reconnects with backoff and resumes after the last event it gave (Last-Event-ID), so a loop over
// it sees every event once, in order. Refusals that asking again cannot change (a revoked key, a
// missing scope) end it with their ApiError.
import { type ProjectEvent, projectEventRule, RESET_EVENT } from '../protocol/events.ts'
import { validate } from '../protocol/rules.ts'
import type { ClientConfig } from './config.ts'
import { ResponseError } from './errors.ts'
import { apiError } from './request.ts'
import { RETRYABLE_STATUSES, retryDelayMs, type Scheduler } from './retry.ts'

/** What the stream gives: an event, or `reset` when the point it resumed from was pruned (list again). */
export type StreamItem = ProjectEvent | { type: 'reset'; prunedThrough: number }

export interface EventStreamOptions {
  /** Resume after this event ID (0: everything the hub still holds); without it, the events to come. */
  after?: number
  /** Ends the iteration (the loop's next step rejects with the signal's reason). */
  signal?: AbortSignal
}

/** The frames of a chunk of the stream: `event` and `data`, comments dropped. */
function frames(text: string): { event?: string; data?: string }[] {
  return text.split('\n\n').map((block) => {
    const frame: { event?: string; data?: string } = {}
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) frame.event = line.slice(6).trim()
      else if (line.startsWith('data:')) frame.data = line.slice(5).trim()
    }
    return frame
  })
}

/** Where the stream is read from (from the base URL), and with which key. */
interface StreamSource {
  path: string
  apiKey: string
}

export async function* eventStream(
  config: Readonly<ClientConfig>,
  scheduler: Scheduler,
  { path, apiKey }: StreamSource,
  options: EventStreamOptions,
): AsyncGenerator<StreamItem> {
  const url = config.baseUrl + path
  let last = options.after
  for (let failures = 0; ; failures++) {
    options.signal?.throwIfAborted()
    let response: Response | undefined
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${apiKey}` }
      if (last !== undefined) headers['last-event-id'] = String(last)
      response = await config.fetch(url, { headers, signal: options.signal })
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason
      response = undefined
      void cause
    }
    if (response && response.status !== 200) {
      const error = apiError('GET', url, {
        status: response.status,
        headers: response.headers,
        text: await response.text(),
      })
      if (!RETRYABLE_STATUSES.has(response.status)) throw error
    } else if (response?.body) {
      const reader = response.body.getReader()
      const decoder = new TextDecoder()
      let buffer = ''
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          buffer += decoder.decode(value, { stream: true })
          const end = buffer.lastIndexOf('\n\n')
          if (end < 0) continue
          const complete = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          for (const frame of frames(complete)) {
            if (frame.data === undefined) continue
            const data = JSON.parse(frame.data) as unknown
            if (frame.event === RESET_EVENT) {
              const prunedThrough = (data as { prunedThrough: number }).prunedThrough
              last = prunedThrough
              yield { type: 'reset', prunedThrough }
              continue
            }
            const checked = validate(projectEventRule, data)
            if (!checked.ok)
              throw new ResponseError(
                'GET',
                url,
                new Error(checked.issues.map((i) => `${i.path || '(event)'} ${i.message}`).join('; ')),
              )
            last = checked.value.id
            failures = 0
            yield checked.value
          }
        }
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason
        if (error instanceof ResponseError) throw error
        // The connection dropped: reconnect below.
      } finally {
        // A loop that stops early ends the connection too.
        void reader.cancel().catch(() => {})
      }
    }
    await scheduler.sleep(retryDelayMs(config, Math.min(failures, 8), undefined, scheduler.random)!, options.signal)
  }
}
