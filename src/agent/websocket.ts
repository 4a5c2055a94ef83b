// A remote agent's connection to the hub's gateway: a WebSocket (Bun's client), text frames only.
import type { Connector } from './connection.ts'

/** How long opening the WebSocket may take (the reference agent allows as long). */
export const CONNECT_TIMEOUT_MS = 12_000

export function websocketConnector(url: string): Connector {
  return (handlers) =>
    new Promise((resolve, reject) => {
      const socket = new WebSocket(url)
      socket.binaryType = 'arraybuffer'
      const timer = setTimeout(() => {
        socket.close()
        reject(new Error(`no connection to ${url} within ${CONNECT_TIMEOUT_MS / 1000} s`))
      }, CONNECT_TIMEOUT_MS)
      socket.onopen = () => {
        clearTimeout(timer)
        resolve({ send: (text) => socket.send(text), close: (code, reason) => socket.close(code, reason) })
      }
      socket.onmessage = (event) =>
        handlers.message(typeof event.data === 'string' ? event.data : new Uint8Array(event.data as ArrayBuffer))
      socket.onclose = (event) => {
        clearTimeout(timer)
        reject(new Error(`the connection to ${url} closed (${event.code})`))
        handlers.closed(event.code, event.reason)
      }
    })
}
