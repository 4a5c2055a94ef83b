// The security part of `bun run bench`: how the hub answers GET /health while someone on the LAN
// leans on it, each phase against the same hub idle in the same run (the yardstick):
//   1. idle: /health latency and the hub's RSS;
//   2. 200 strangers at the agent gateway, each sending most of a 2 MiB frame and holding it: the
//      hub's RSS while they hold, and /health latency;
//   3. 200 wrong admin passwords at once from one address (argon2id, counted as they start);
//   4. 20 jobs with a 4-megapixel image each, rendered in the render worker while /health is asked
//      (and, as its yardstick, how long one such document holds a thread when rendered inline);
//   5. 3,000 connections (from 12 addresses) that send their request headers a line every 2 s and
//      never finish them (slowloris), and 5,000 from one address with 8 KB of headers each: the
//      hub's RSS and /health latency;
//   6. 300 job bodies of 2 MiB from five API keys, all but the last KiB sent and held: the hub's
//      RSS (the body budget answers most of them 429 at once) and /health latency.
// /health is asked by one client every 10 ms for the length of a phase.
import { connect, type Socket } from 'node:net'
import { MAX_FRAME_BYTES } from '../src/protocol/limits.ts'
import type { SectionResult } from './bench.ts'
import { cli, initDataDir, ms, newDataDir, round, rssMb, sleep, startHub } from './bench-hub.ts'
import { type LatencySummary, summarize } from './bench-load.ts'
import { gatewayStranger } from '../test/support/gateway-stranger.ts'
import { blackPng } from '../test/support/images.ts'
import type { PrintDocument } from '../src/protocol/document.ts'
import { render, targetFor } from '../src/render/render.ts'

const PHASE_MS = 3_000
const PROBE_EVERY_MS = 10
const TARGET_HEALTH_P99_MS = 50
const TARGET_RSS_MB = 150

/** Asks /health every PROBE_EVERY_MS while `during` runs, and for at least PHASE_MS. */
async function healthWhile(url: string, during: () => Promise<unknown>): Promise<LatencySummary> {
  const latencies: number[] = []
  let running = true
  const probe = (async () => {
    while (running) {
      const started = performance.now()
      const response = await fetch(`${url}/health`)
      await response.arrayBuffer()
      if (response.status !== 200) throw new Error(`/health answered ${response.status}`)
      latencies.push(performance.now() - started)
      await sleep(PROBE_EVERY_MS)
    }
  })()
  await Promise.all([during(), sleep(PHASE_MS)])
  running = false
  await probe
  return summarize(Float64Array.from(latencies))
}

export async function securitySection(): Promise<SectionResult> {
  console.log('security: /health while the hub is leaned on...')
  const dir = newDataDir()
  const { projectId, apiKey, printerId } = await initDataDir(dir)
  const bodyKeys: string[] = []
  for (let i = 0; i < 5; i++)
    bodyKeys.push(
      (JSON.parse(await cli(['keys', 'create', '--project', projectId, '--data', dir, '--json'])) as { apiKey: string })
        .apiKey,
    )
  const hub = await startHub(dir)
  try {
    const port = Number(new URL(hub.url).port)
    const idle = await healthWhile(hub.url, async () => {})
    const idleRss = rssMb(hub.pid)

    let heldRss = 0
    const sockets: Socket[] = []
    const gateway = await healthWhile(hub.url, async () => {
      const strangers = Array.from({ length: 200 }, (_, i) =>
        gatewayStranger(
          port,
          `127.0.${1 + (i % 50)}.${1 + Math.floor(i / 50)}`,
          MAX_FRAME_BYTES,
          MAX_FRAME_BYTES - 1024,
        ),
      )
      sockets.push(...strangers.map((s) => s.socket))
      await Promise.all(strangers.map((s) => s.status))
      await sleep(500)
      heldRss = rssMb(hub.pid)
    })
    for (const socket of sockets) socket.destroy()

    const passwords = await healthWhile(hub.url, () =>
      Promise.all(
        Array.from({ length: 200 }, () =>
          fetch(`${hub.url}/admin/v1/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ password: 'not the password' }),
          }).then((r) => r.arrayBuffer()),
        ),
      ),
    )

    const image = { type: 'image', mediaType: 'image/png', data: blackPng(2048, 2048) }
    const rendering = await healthWhile(hub.url, () =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              printerId,
              idempotencyKey: `heavy-${i}`,
              document: { width: 80, sections: [image, { type: 'cut' }] },
            }),
          }).then(async (r) => {
            await r.arrayBuffer()
            if (r.status !== 202) throw new Error(`a job with an image was answered ${r.status}`)
          }),
        ),
      ),
    )

    let slowRss = 0
    const beforeSlowRss = rssMb(hub.pid)
    const slow: Socket[] = []
    const oneAddress: Socket[] = []
    const drip = setInterval(() => {
      for (const socket of slow) socket.write('x-slow: 1\r\n')
    }, 2_000)
    const slowloris = await healthWhile(hub.url, async () => {
      for (let i = 0; i < 3_000; i++) {
        const socket = connect({
          host: '127.0.0.1',
          port,
          localAddress: `127.1.${Math.floor(i / 250)}.${1 + (i % 250)}`,
        })
        socket.on('error', () => {})
        socket.write(`GET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n`)
        slow.push(socket)
      }
      for (let i = 0; i < 5_000; i++) {
        const socket = connect({ host: '127.0.0.1', port, localAddress: '127.2.0.1' })
        socket.on('error', () => {})
        socket.write(`GET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-pad: ${'a'.repeat(8_000)}`)
        oneAddress.push(socket)
        if (i % 500 === 499) await sleep(20)
      }
      await sleep(1_500)
      slowRss = rssMb(hub.pid)
    })
    clearInterval(drip)
    for (const socket of [...slow, ...oneAddress]) socket.destroy()

    let bodiesRss = 0
    const bodySockets: Socket[] = []
    const bodies = await healthWhile(hub.url, async () => {
      for (const key of bodyKeys) {
        for (let i = 0; i < 60; i++) {
          const socket = connect({ host: '127.0.0.1', port, localAddress: `127.3.${bodySockets.length % 50}.1` })
          socket.on('error', () => {})
          socket.write(
            `POST /v1/projects/${projectId}/jobs HTTP/1.1\r\nhost: ` +
              `hub\r\nauthorization: Bearer ${key}\r\ncontent-type: ` +
              `application/json\r\ncontent-length: ${MAX_FRAME_BYTES}\r\n\r\n`,
          )
          socket.write(Buffer.alloc(MAX_FRAME_BYTES - 1024, 0x20))
          bodySockets.push(socket)
        }
      }
      await sleep(1_500)
      bodiesRss = rssMb(hub.pid)
    })
    for (const socket of bodySockets) socket.destroy()

    // What each of those jobs would hold the hub's event loop for if it were rendered there.
    const inline: number[] = []
    for (let i = 0; i < 3; i++) {
      const started = performance.now()
      render(
        { width: 80, sections: [image as PrintDocument['sections'][number], { type: 'cut' }] },
        targetFor('generic-80mm', 80),
      )
      inline.push(performance.now() - started)
    }
    const inlineMs = inline.sort((a, b) => a - b)[1]!

    const line = (name: string, s: LatencySummary) =>
      `${name.padEnd(44)} /health p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, max ${ms(s.max)}`
    const p99 = (name: string, s: LatencySummary) => ({
      name: `/health p99, ${name}`,
      value: round(s.p99, 2),
      unit: ' ms',
      target: `< ${TARGET_HEALTH_P99_MS} ms`,
      pass: s.p99 < TARGET_HEALTH_P99_MS,
    })
    return {
      report: [
        'security (one hub; /health every 10 ms in each phase)',
        line('idle (yardstick)', idle),
        line('200 strangers holding 2 MiB frames', gateway),
        line('200 wrong admin passwords at once', passwords),
        line('20 jobs with a 4-megapixel image', rendering),
        `  (one of them rendered inline would hold the event loop ${ms(inlineMs)}: median of 3)`,
        line('3,000 + 5,000 slow-header connections', slowloris),
        line('300 slow 2 MiB job bodies', bodies),
        `hub RSS: idle ${round(idleRss)} MB, with 200 strangers holding frames ` +
          `${round(heldRss)} MB, with 8,000 slow connections ${round(slowRss)} MB ` +
          `(${round(slowRss - beforeSlowRss)} MB against just before), with 300 ` +
          `slow job bodies ${round(bodiesRss)} MB`,
      ],
      checks: [
        p99('200 strangers at the gateway', gateway),
        p99('200 wrong passwords', passwords),
        p99('images rendering', rendering),
        p99('8,000 slow connections', slowloris),
        p99('300 slow job bodies', bodies),
        {
          name: 'RSS, 200 strangers at the gateway',
          value: round(heldRss),
          unit: ' MB',
          target: `< ${TARGET_RSS_MB} MB`,
          pass: heldRss < TARGET_RSS_MB,
        },
        {
          name: 'RSS, 300 slow job bodies',
          value: round(bodiesRss),
          unit: ' MB',
          target: `< ${TARGET_RSS_MB} MB`,
          pass: bodiesRss < TARGET_RSS_MB,
        },
      ],
      results: {
        idle,
        gateway,
        passwords,
        rendering,
        inlineRenderMs: inlineMs,
        slowloris,
        bodies,
        bodiesRssMb: bodiesRss,
        idleRssMb: idleRss,
        heldRssMb: heldRss,
        slowRssMb: slowRss,
        beforeSlowRssMb: beforeSlowRss,
      },
    }
  } finally {
    await hub.stop()
  }
}
