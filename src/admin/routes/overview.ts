// The overview, and the stream that keeps open pages live: a server-sent event whenever what the
// dashboard shows changed.
import { type AdminOverview, EVENT_KEEPALIVE_MS, MAX_EVENT_STREAMS } from '../../protocol/admin/overview.ts'
import type { JobState } from '../../protocol/job.ts'
import { authenticateAdmin } from '../auth.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, STAFF } from '../router.ts'

/** How often an open stream looks for changes. */
const TICK_MS = 500
/** A stream checks its session again this often, and ends when the session did. */
const SESSION_CHECK_MS = 30_000

export function overviewRoutes(context: AdminContext) {
  let streams = 0
  const sources = { ...context, serverName: () => context.settings.values.serverName }
  const overview = async (): Promise<AdminOverview> => {
    const answer = await context.services.overview(sources, await context.liveness())
    // The counts are made from JOB_STATES, one for each state; their type names no state. (Keys keep their places.)
    const counts = answer.jobsToday.counts as Record<JobState, number>
    return { ...answer, jobsToday: { ...answer.jobsToday, counts } }
  }
  return adminRouter(context.services, STAFF)
    .get('/overview', () => overview())
    .get('/events', ({ request }) => {
      if (streams >= MAX_EVENT_STREAMS || context.stopping.aborted)
        return new Response('Too many open dashboards.', { status: 503, headers: { 'retry-after': '10' } })
      const encoder = new TextEncoder()
      const timers: Timer[] = []
      let finished = false
      let finish = () => {}
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          streams++
          // However the stream ends (the page closed, the session ended), once.
          finish = () => {
            if (finished) return
            finished = true
            streams--
            for (const timer of timers) clearInterval(timer)
            try {
              controller.close()
            } catch {}
          }
          const send = (text: string) => {
            try {
              controller.enqueue(encoder.encode(text))
            } catch {
              finish()
            }
          }
          let last = ''
          let changes = ''
          let reading = false
          // One reading at a time: a slow database skips ticks rather than piling them up.
          const tick = async () => {
            if (reading || finished) return
            reading = true
            try {
              const snapshot = JSON.stringify(await overview())
              // Any change to the data may be on a page: the page asks again for what it shows.
              const changed = await context.services.changes()
              if (snapshot !== last || changed !== changes) send(`event: change\ndata: ${snapshot}\n\n`)
              last = snapshot
              changes = changed
            } catch (error) {
              // The database away (a cluster's): the page keeps what it shows; the next tick tries again.
              context.log.warn(
                'the overview could not be read; open pages keep what they show',
                {
                  error: String(error),
                },
                { limit: 'overview' },
              )
            } finally {
              reading = false
            }
          }
          void tick()
          timers.push(setInterval(tick, TICK_MS))
          timers.push(setInterval(() => send(': alive\n\n'), EVENT_KEEPALIVE_MS))
          timers.push(
            setInterval(() => {
              authenticateAdmin(context.services, request).catch(() => finish())
            }, SESSION_CHECK_MS),
          )
          request.signal.addEventListener('abort', () => finish())
          context.stopping.addEventListener('abort', () => finish())
        },
        cancel: () => finish(),
      })
      return new Response(body, {
        headers: {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          'x-accel-buffering': 'no',
        },
      })
    })
}
