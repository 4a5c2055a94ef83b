// Strangers at the gateway, against a real hub process: 200 connections that each start a frame
// of 2 MiB and never finish it. Before authentication only a few connections are let in (in all
// and per address), so the memory such frames hold stays bounded (the hub stays far below what a
// Pi can give it), the rest get 429 before any WebSocket is made, the deadline closes those let in,
// and a paired agent still connects and prints while it goes on.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { MAX_UNAUTHENTICATED, MAX_UNAUTHENTICATED_PER_ADDRESS } from '../../src/gateway/admission.ts'
import { GATEWAY_PATH } from '../../src/protocol/discovery.ts'
import { MAX_FRAME_BYTES } from '../../src/protocol/limits.ts'
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

const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${hub.process.pid}/status`, 'utf8'))![1]) / 1024

interface Stranger {
  socket: Socket
  /** The status of the HTTP answer to the upgrade: 101 when let in. */
  status: Promise<number>
  closed: Promise<void>
}

/**
 * Opens the gateway from `localAddress` and, once upgraded, starts a masked text frame that
 * announces `announced` bytes and sends `sent` of them, then holds the connection.
 */
function stranger(localAddress: string, announced: number, sent: number): Stranger {
  const socket = connect({ host: '127.0.0.1', port, localAddress })
  let received = ''
  const status = new Promise<number>((resolve, reject) => {
    socket.on('data', (data) => {
      received += data.toString('latin1')
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received)
      if (!match || !received.includes('\r\n\r\n')) return
      const code = Number(match[1])
      if (code === 101 && !socket.writableEnded) {
        const header = Buffer.alloc(14)
        header[0] = 0x81
        header[1] = 0x80 | 127
        header.writeBigUInt64BE(BigInt(announced), 2)
        header.writeUInt32BE(0x01020304, 10)
        socket.write(header)
        socket.write(Buffer.alloc(sent, 0x61))
      }
      resolve(code)
    })
    socket.on('error', reject)
  })
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  socket.write(`GET ${GATEWAY_PATH} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: ${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64')}\r\nsec-websocket-version: 13\r\n\r\n`)
  return { socket, status, closed }
}

test('200 half-sent 2 MiB frames: a few are let in, the memory they hold is bounded, the rest get 429, the deadline closes the rest', async () => {
  const before = rssMb()
  const announced = MAX_FRAME_BYTES
  const strangers = Array.from({ length: 200 }, (_, i) => stranger(`127.0.${1 + (i % 50)}.${1 + Math.floor(i / 50)}`, announced, announced - 1024))
  const statuses = await Promise.all(strangers.map((s) => s.status))
  const admitted = statuses.filter((s) => s === 101).length
  expect(admitted).toBe(MAX_UNAUTHENTICATED)
  expect(statuses.filter((s) => s === 429)).toHaveLength(200 - MAX_UNAUTHENTICATED)
  // Everything they sent has arrived and is held by now: the hub still answers, and is far from what a Pi has.
  const health = await fetch(`${hub.url}/health`)
  expect(health.status).toBe(200)
  const held = rssMb()
  expect(held).toBeLessThan(150)
  expect(held - before).toBeLessThan(((MAX_UNAUTHENTICATED * MAX_FRAME_BYTES) / 1024 / 1024) * 1.5 + 20)
  // The authentication deadline (10 s) ends each one that was let in.
  await Promise.all(strangers.filter((_, i) => statuses[i] === 101).map((s) => s.closed))
  for (const s of strangers) s.socket.destroy()
}, 60_000)

test(`from one address at most ${MAX_UNAUTHENTICATED_PER_ADDRESS} at a time; a place comes back when one closes`, async () => {
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
