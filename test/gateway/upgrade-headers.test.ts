// The gateway's 101 answer carries the headers docs/api.md promises on every response (a request
// ID, no caching, no sniffing), as read from the raw HTTP head on a TCP socket and by a real
// WebSocket client, which still opens and is sent the challenge. The hub's only WebSocket upgrade is
// this one (the dashboard and the event stream are plain HTTP).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { connect } from 'node:net'
import { GATEWAY_PATH } from '../../src/protocol/discovery.ts'
import { startTestHub, type TestHub } from '../support/hub.ts'

let hub: TestHub
beforeAll(async () => {
  hub = await startTestHub()
})
afterAll(() => hub.stop())

const webSocketKey = () => Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64')

/** The head of the hub's answer to a WebSocket upgrade, read off a raw TCP socket. */
function upgradeHead(port: number): Promise<string> {
  const socket = connect(port, '127.0.0.1')
  return new Promise<string>((resolve, reject) => {
    let received = ''
    socket.on('data', (data) => {
      received += data.toString('latin1')
      const end = received.indexOf('\r\n\r\n')
      if (end < 0) return
      socket.destroy()
      resolve(received.slice(0, end))
    })
    socket.on('error', reject)
    socket.on('close', () => reject(new Error(`closed before a complete head: ${JSON.stringify(received)}`)))
    socket.write(
      `GET ${GATEWAY_PATH} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nupgrade: ` +
        `websocket\r\nconnection: Upgrade\r\nsec-websocket-key: ` +
        `${webSocketKey()}\r\nsec-websocket-version: 13\r\n\r\n`,
    )
  })
}

function headerOf(head: string, name: string): string | undefined {
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':')
    if (line.slice(0, colon).trim().toLowerCase() === name) return line.slice(colon + 1).trim()
  }
  return undefined
}

test(
  'the 101 head, as sent on the wire, carries x-request-id, cache-control ' + 'and x-content-type-options, once each',
  async () => {
    const head = await upgradeHead(hub.hub.port)
    expect(head).toStartWith('HTTP/1.1 101 ')
    expect(headerOf(head, 'x-request-id')).toMatch(/^req_[0-9a-f]{20}$/)
    expect(headerOf(head, 'cache-control')).toBe('no-store')
    expect(headerOf(head, 'x-content-type-options')).toBe('nosniff')
    for (const name of [
      'x-request-id',
      'cache-control',
      'x-content-type-options',
      'upgrade',
      'connection',
      'sec-websocket-accept',
    ]) {
      expect(head.split('\r\n').filter((line) => line.toLowerCase().startsWith(`${name}:`))).toHaveLength(1)
    }
    // Each upgrade is its own request.
    expect(headerOf(await upgradeHead(hub.hub.port), 'x-request-id')).not.toBe(headerOf(head, 'x-request-id'))
  },
)

test(
  'a WebSocket client sees the headers on the 101, and the gateway still ' + 'opens and sends its challenge',
  async () => {
    const url = new URL(GATEWAY_PATH, hub.url)
    // node:http's client hands over the 101's headers with the upgraded socket.
    const headers = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
      const req = httpRequest(url, {
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-key': webSocketKey(),
          'sec-websocket-version': '13',
        },
      })
      req.on('upgrade', (res, socket) => {
        socket.destroy()
        resolve(res.headers)
      })
      req.on('response', (res) => reject(new Error(`answered ${res.statusCode}, not upgraded`)))
      req.on('error', reject)
      req.end()
    })
    expect(headers['x-request-id']).toMatch(/^req_[0-9a-f]{20}$/)
    expect(headers['cache-control']).toBe('no-store')
    expect(headers['x-content-type-options']).toBe('nosniff')

    // The WebSocket API of the runtime (what agents use): the handshake with the headers still succeeds.
    const socket = new WebSocket(url.href.replace(/^http/, 'ws'))
    const first = await new Promise<string>((resolve, reject) => {
      socket.onmessage = (event) => resolve(String(event.data))
      socket.onerror = () => reject(new Error('the WebSocket failed'))
      socket.onclose = (event) => reject(new Error(`closed ${event.code} before the challenge`))
    })
    socket.onclose = null
    socket.close()
    expect(JSON.parse(first)).toMatchObject({ type: 'auth.challenge' })
  },
)

test('the request log has one line for each upgrade, with the ID the 101 carried', async () => {
  const head = await upgradeHead(hub.hub.port)
  const id = headerOf(head, 'x-request-id')!
  expect(hub.logs.filter((line) => line.endsWith(` ${id}`))).toEqual([
    expect.stringMatching(new RegExp(`^GET ${GATEWAY_PATH} 101 `)),
  ])
})
