// The project's events as a stream (Server-Sent Events, scope jobs:read): `id:` the event's ID,
// `event:` its type, `data:` the event as JSON. It resumes exactly after `Last-Event-ID` (the
// header, as browsers send it on reconnecting) or `?after=ID`, across restarts of the hub: no
// event lost, none twice; when that point was pruned it says `reset` first. Without either it
// starts with the events to come. Each stream holds at most STREAM_BUFFER_BYTES it has not sent
// (the rest waits in the database), says it is alive every 15 s, and ends when its key is revoked.
import { Elysia } from 'elysia'
import { ApiError, invalidField } from '../../http/errors.ts'
import { QueryReader } from '../../http/query.ts'
import { RESET_EVENT } from '../../protocol/events.ts'
import { authenticate } from '../auth.ts'
import type { ApiContext } from '../context.ts'

export const HEARTBEAT_MS = 15_000
/** Streams open at once at most, for all projects: each costs a listener and a timer. */
export const MAX_EVENT_STREAMS = 1_000
/** Bytes a stream keeps queued for a slow reader at most, before it stops reading the log. */
const STREAM_BUFFER_BYTES = 64 * 1024
/** Events read from the log in one go. */
const BATCH = 200
/** How often a stream checks that its key is still valid. */
const KEY_CHECK_MS = 30_000
const EVENT_ID = /^\d{1,15}$/

/** A reader of a project's stream, as the fan-out sees it. */
interface Reader {
  /** The newest event it was sent. */
  last: number
  /** Whether it can take more now (its queue is below its bound, and it is not reading already). */
  ready(): boolean
  /** Marks it reading: nothing else reads for it until `release`. */
  hold(): void
  /** Takes frames read once for every reader at the same point; `more`: the batch was full. */
  take(bytes: Uint8Array, last: number, more: boolean): void
  /** Done reading for it; it reads on by itself if more may be there. */
  release(): void
  /** Told of new events while it was reading: it looks again once done. */
  missed(): void
}

export function eventRoutes({ services, stopping }: ApiContext) {
  let streams = 0
  const encoder = new TextEncoder()
  const readers = new Map<string, Set<Reader>>()
  // Projects whose readers are being fed now, and those told of new events meanwhile (fed again once done).
  const feeding = new Set<string>()
  const again = new Set<string>()
  // New events of a project are read once for all its readers that are caught up: the others read
  // on from the log by themselves when their queue has room again.
  const feed = async (projectId: string): Promise<void> => {
    if (feeding.has(projectId)) return void again.add(projectId)
    feeding.add(projectId)
    try {
      do {
        again.delete(projectId)
        const ready = new Map<number, Reader[]>()
        for (const reader of readers.get(projectId) ?? []) {
          if (!reader.ready()) reader.missed()
          else ready.set(reader.last, [...(ready.get(reader.last) ?? []), reader])
        }
        for (const [last, group] of ready) {
          for (const reader of group) reader.hold()
          let frames: { id: number; frame: string }[] = []
          try {
            frames = await services.events.frames(projectId, last, BATCH)
            if (frames.length > 0) {
              const bytes = encoder.encode(frames.map((f) => f.frame).join(''))
              for (const reader of group) reader.take(bytes, frames.at(-1)!.id, frames.length === BATCH)
            }
          } finally {
            for (const reader of group) reader.release()
          }
        }
      } while (again.has(projectId))
    } catch {
      // The store is away: each reader reads on by itself when told again, or at its next pull.
    } finally {
      feeding.delete(projectId)
    }
  }
  services.events.listen((projectId) => void feed(projectId))
  return new Elysia().get('/v1/projects/:projectId/events', async ({ request, params }) => {
    const projectId = params.projectId
    await authenticate(services, request, projectId, 'jobs:read')
    const query = new QueryReader(request.url, ['after'])
    const afterQuery = query.integer('after', 0, 999_999_999)
    query.check()
    const header = request.headers.get('last-event-id')
    if (header !== null && !EVENT_ID.test(header))
      throw invalidField('header.last-event-id', 'must be the ID of an event this stream sent')
    if (streams >= MAX_EVENT_STREAMS || stopping.aborted)
      throw new ApiError('rate_limited', 'Too many event streams are open; try again shortly.', {
        headers: { 'retry-after': '10' },
      })
    const resumeFrom = header !== null ? Number(header) : afterQuery
    // Where it starts: after the point it resumes from, else after the newest event now; and what retention pruned.
    const [start, pruned] = await Promise.all([
      resumeFrom ?? services.events.newest(projectId),
      services.events.prunedThrough(projectId),
    ])
    let finished = false
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined
    const timers: Timer[] = []
    // One read for it at a time (the fan-out's or its own); told of events meanwhile, it looks again after.
    let reading = false
    let told = false
    let more = false
    const self: Reader = {
      last: start,
      ready: () => !finished && !reading && controller !== undefined && (controller.desiredSize ?? 0) > 0,
      hold: () => void (reading = true),
      take(bytes, last, full) {
        self.last = last
        try {
          send(bytes)
        } catch {
          // Its connection is gone: it ends here, and the other readers still get theirs.
          return finish()
        }
        more ||= full
      },
      release() {
        reading = false
        if (more || told) void pump()
      },
      missed: () => void (told = true),
    }
    const send = (chunk: string | Uint8Array) =>
      controller!.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk)
    const finish = () => {
      if (finished) return
      finished = true
      streams--
      readers.get(projectId)?.delete(self)
      if (readers.get(projectId)?.size === 0) readers.delete(projectId)
      for (const timer of timers) clearInterval(timer)
      try {
        controller?.close()
      } catch {}
    }
    // Reads on from the log while the reader keeps up; what is not sent waits there, not here.
    const pump = async (): Promise<void> => {
      if (finished || !controller) return
      if (reading) return void (told = true)
      reading = true
      try {
        do {
          told = false
          more = false
          while (!finished && (controller.desiredSize ?? 0) > 0) {
            const frames = await services.events.frames(projectId, self.last, BATCH)
            if (finished) return
            if (frames.length > 0) {
              self.last = frames.at(-1)!.id
              send(frames.map((f) => f.frame).join(''))
            }
            if (frames.length < BATCH) break
          }
        } while (told && !finished && (controller.desiredSize ?? 0) > 0)
      } catch {
        finish()
      } finally {
        reading = false
      }
    }
    streams++
    const body = new ReadableStream<Uint8Array>(
      {
        start(opened) {
          controller = opened
          if (!readers.has(projectId)) readers.set(projectId, new Set())
          readers.get(projectId)!.add(self)
          timers.push(
            setInterval(() => !finished && (opened.desiredSize ?? 0) > 0 && send(': alive\n\n'), HEARTBEAT_MS),
          )
          timers.push(
            setInterval(() => {
              // A key revoked meanwhile (or its project's) ends the stream.
              authenticate(services, request, projectId, 'jobs:read').catch(() => finish())
            }, KEY_CHECK_MS),
          )
          request.signal.addEventListener('abort', finish)
          stopping.addEventListener('abort', finish)
          // Resuming from a point the log no longer holds: the reader missed events and should list again.
          if (resumeFrom !== undefined && resumeFrom < pruned) {
            send(`event: ${RESET_EVENT}\ndata: ${JSON.stringify({ prunedThrough: pruned })}\n\n`)
            self.last = pruned
          }
          send(': connected\n\n')
          void pump()
        },
        pull: pump,
        cancel: finish,
      },
      { highWaterMark: STREAM_BUFFER_BYTES, size: (chunk) => chunk?.byteLength ?? 0 },
    )
    return new Response(body, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      },
    })
  })
}
