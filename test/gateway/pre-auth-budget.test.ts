// Strangers at the gateway, against a real hub process: 200 connections that each start a frame
// of 2 MiB and never finish it. Before authentication only a few connections are let in (in all
// and per address), so the memory such frames hold stays bounded (the hub stays far below what a
// Pi can give it), the rest get 429 before any WebSocket is made, the deadline closes those let in,
// and a paired agent still connects and prints while it goes on.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { MAX_UNAUTHENTICATED, MAX_UNAUTHENTICATED_PER_ADDRESS } from '../../src/gateway/admission.ts'
import { MAX_FRAME_BYTES } from '../../src/protocol/limits.ts'
import { gatewayStranger } from '../support/gateway-stranger.ts'
import { spawnServe, type ServeProcess } from '../support/serve.ts'
import { tempDir } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

let dir: string
let hub: ServeProcess
let port: number

beforeAll(async () => {
  dir = tempDir()
  hub = await spawnServe(dir)
  port = Number(new URL(hub.url).port)
})
afterAll(async () => {
  await hub.stop()
  rmSync(dir, { recursive: true, force: true })
})

const stranger = (localAddress: string, announced: number, sent: number) =>
  gatewayStranger(port, localAddress, announced, sent)

test('200 half-sent 2 MiB frames: a few are let in, the memory they hold is ' +
  'bounded, the rest get 429, the deadline closes the rest', async () => {
  const before = hub.rssMb()
  const announced = MAX_FRAME_BYTES
  const strangers = Array.from({ length: 200 }, (_, i) =>
    stranger(`127.0.${1 + (i % 50)}.${1 + Math.floor(i / 50)}`, announced, announced - 1024),
  )
  const statuses = await Promise.all(strangers.map((s) => s.status))
  const admitted = statuses.filter((s) => s === 101).length
  expect(admitted).toBe(MAX_UNAUTHENTICATED)
  expect(statuses.filter((s) => s === 429)).toHaveLength(200 - MAX_UNAUTHENTICATED)
  // Everything they sent has arrived and is held by now: the hub still answers, and is far from what a Pi has.
  const health = await fetch(`${hub.url}/health`)
  expect(health.status).toBe(200)
  const held = hub.rssMb()
  expect(held).toBeLessThan(150)
  expect(held - before).toBeLessThan(((MAX_UNAUTHENTICATED * MAX_FRAME_BYTES) / 1024 / 1024) * 1.5 + 20)
  // The authentication deadline (10 s) ends each one that was let in.
  await Promise.all(strangers.filter((_, i) => statuses[i] === 101).map((s) => s.closed))
  for (const s of strangers) s.socket.destroy()
}, 60_000)

test(`from one address at most ${MAX_UNAUTHENTICATED_PER_ADDRESS} at a time; a ` +
  `place comes back when one closes`, async () => {
  const strangers = Array.from({ length: MAX_UNAUTHENTICATED_PER_ADDRESS + 2 }, () => stranger('127.0.9.9', 64, 0))
  const statuses = await Promise.all(strangers.map((s) => s.status))
  expect(statuses.filter((s) => s === 101)).toHaveLength(MAX_UNAUTHENTICATED_PER_ADDRESS)
  expect(statuses.filter((s) => s === 429)).toHaveLength(2)
  const first = strangers[statuses.indexOf(101)]!
  first.socket.destroy()
  await first.closed
  const again = await waitFor(async () => {
    const next = stranger('127.0.9.9', 64, 0)
    const status = await next.status
    if (status === 101) return next
    next.socket.destroy()
    return undefined
  })
  for (const s of [...strangers, again]) s.socket.destroy()
}, 30_000)
