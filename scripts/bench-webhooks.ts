// The webhook part of the `events` bench section: one webhook of the project to a receiver in this
// process, while jobs are submitted at a steady rate. How long a job's `job.created` takes from the
// submission to the receiver, how many deliveries a second one webhook gets through, and that each
// came once, in order, with a valid signature.
import { verifyWebhook } from '../src/client/index.ts'
import type { HubProcess, Project } from './bench-hub.ts'
import { round, sized, sleep, submitAtRate } from './bench-hub.ts'
import { summarize } from './bench-load.ts'

const JOBS = sized(200, 50)
const JOBS_PER_SECOND = 20
/**
 * The events of a job to the demo printer: created, then three states (DISPATCHING, DELIVERED,
 * COMPLETED: it prints as it takes the bytes, so no PRINTING). The events section counts with it too.
 */
export const EVENTS_PER_JOB = 4
const ARRIVAL_TIMEOUT_MS = 30_000

export interface WebhookFigures {
  report: string[]
  /** Deliveries that never came, came twice, out of order or with a bad signature. */
  wrong: number
  results: Record<string, unknown>
}

export async function webhookPhase(hub: HubProcess, project: Project): Promise<WebhookFigures> {
  const received: { id: string; at: number; headers: Headers; body: string }[] = []
  const receiver = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (request) => {
      received.push({
        id: request.headers.get('webhook-id') ?? '',
        at: performance.now(),
        headers: request.headers,
        body: await request.text(),
      })
      return new Response(null, { status: 204 })
    },
  })
  try {
    const made = await fetch(`${hub.url}/v1/projects/${project.projectId}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `http://127.0.0.1:${receiver.port}/hook`,
        events: ['job.created', 'job.state_changed'],
      }),
    })
    if (made.status !== 201) throw new Error(`making the webhook answered ${made.status}`)
    const { secret } = (await made.json()) as { secret: string }
    const started = performance.now()
    const submitted = await submitAtRate(hub.url, project, {
      count: JOBS,
      perSecond: JOBS_PER_SECOND,
      keyPrefix: 'webhooks',
    })
    const expected = JOBS * EVENTS_PER_JOB
    const deadline = performance.now() + ARRIVAL_TIMEOUT_MS
    while (performance.now() < deadline && received.length < expected) await sleep(50)
    const span = (received.at(-1)?.at ?? started) - started
    // Each once, in order (event IDs only grow), signed with the secret.
    const ids = received.map((r) => Number(r.id.slice('evt_'.length)))
    let wrong = Math.abs(expected - received.length) + (received.length - new Set(ids).size)
    for (let i = 1; i < ids.length; i++) if (ids[i]! <= ids[i - 1]!) wrong++
    const latencies: number[] = []
    for (const delivery of received) {
      const body = await verifyWebhook(secret, delivery.headers, delivery.body).catch(() => undefined)
      if (!body) {
        wrong++
        continue
      }
      const data = body.data as { type: string; job: { id: string } }
      const at = data.type === 'job.created' ? submitted.get(data.job.id) : undefined
      if (at !== undefined) latencies.push(delivery.at - at)
    }
    const latency = summarize(Float64Array.from(latencies))
    return {
      report: [
        `webhooks (one webhook, ${JOBS} jobs at ${JOBS_PER_SECOND}/s, ` +
          `${EVENTS_PER_JOB} events each, a receiver answering 204 at once)`,
        `submit -> job.created delivered   p50 ${latency.p50.toFixed(2)} ms   p99 ` +
          `${latency.p99.toFixed(2)} ms   max ${latency.max.toFixed(1)} ms`,
        `deliveries                     ${received.length} of ${expected} in ` +
          `${round(span / 1000, 2)} s ` +
          `(${round((received.length * 1000) / Math.max(1, span))}/s); ${wrong} ` +
          `missing, twice, out of order or badly signed`,
      ],
      wrong,
      results: {
        jobs: JOBS,
        jobsPerSecond: JOBS_PER_SECOND,
        delivered: received.length,
        expected,
        latencyMs: latency,
        wrong,
      },
    }
  } finally {
    receiver.stop(true)
  }
}
