// The built-in agent's connection to the gateway: a pipe in memory carrying the same text frames
// a WebSocket would, through the same session code. Each frame is delivered on a later turn of
// the event loop, as from a socket, so neither side ever runs inside the other's send. Both ends are
// this program and check every frame they read: a frame is checked there, once, not also on its
// way out (`inProcess`, protocol/codec.ts): about 40 µs a job (docs/performance.md).
import type { AgentTransport, Connector } from '../agent/connection.ts'
import type { Gateway } from '../gateway/gateway.ts'
import type { SessionOptions } from '../gateway/session.ts'

export function inMemoryConnector(gateway: Gateway, options: SessionOptions): Connector {
  return async (handlers) => {
    let open = true
    const closeBoth = (code: number, reason: string) => {
      if (!open) return
      open = false
      queueMicrotask(() => {
        session.transportClosed(code)
        handlers.closed(code, reason)
      })
    }
    const session = gateway.accept(
      {
        send(text) {
          if (!open) throw new Error('the connection is closed')
          queueMicrotask(() => open && handlers.message(text))
        },
        close: closeBoth,
        remoteAddress: 'in-process',
        inProcess: true,
      },
      options,
    )
    const agentSide: AgentTransport = {
      send(text) {
        if (!open) throw new Error('the connection is closed')
        queueMicrotask(() => open && session.receive(text))
      },
      close: closeBoth,
      inProcess: true,
    }
    return agentSide
  }
}
