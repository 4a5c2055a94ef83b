// The gateway's WebSocket endpoint. The upgrade goes through Elysia, but frames are taken raw:
// Elysia's own .ws() parses text frames as JSON before a handler sees them, and the protocol
// must see the exact text (its size, its UTF-8, duplicate keys) to decode it by the rules.
import type { ServerWebSocket } from 'bun'
import { Elysia } from 'elysia'
import { ApiError } from '../../http/errors.ts'
import { GATEWAY_PATH } from '../../protocol/discovery.ts'
import { MAX_FRAME_BYTES } from '../../protocol/limits.ts'
import type { Gateway } from '../../gateway/gateway.ts'
import type { GatewaySession } from '../../gateway/session.ts'

/**
 * Bun closes a connection (1009) that sends a frame above this; between the protocol's 2 MiB and
 * this, the session answers a too-large frame the protocol's way.
 */
export const MAX_WEBSOCKET_PAYLOAD = 2 * MAX_FRAME_BYTES

/** Bun's own idle limit, well above the heartbeat interval: heartbeats decide liveness. */
export const WEBSOCKET_IDLE_TIMEOUT_SECONDS = 120

interface SocketData {
  session?: GatewaySession
  open(ws: ServerWebSocket<SocketData>): void
  message(ws: ServerWebSocket<SocketData>, message: string | Buffer): void
  close(ws: ServerWebSocket<SocketData>, code: number): void
}

export function gatewayRoute(gateway: Gateway) {
  return new Elysia().get(GATEWAY_PATH, ({ request, server }) => {
    const data: SocketData = {
      open(ws) {
        data.session = gateway.accept({
          send(text) {
            // 0 means Bun dropped the frame; -1 means it is queued (backpressure), which is fine.
            if (ws.sendText(text) === 0) throw new Error('the frame could not be sent')
          },
          close(code, reason) {
            ws.close(code, reason)
          },
          remoteAddress: ws.remoteAddress,
        })
      },
      message(_ws, message) {
        data.session?.receive(typeof message === 'string' ? message : new Uint8Array(message))
      },
      close(_ws, code) {
        data.session?.transportClosed(code)
      },
    }
    if (!server?.upgrade(request, { data })) throw new ApiError('upgrade_required', 'This is the agent gateway: open a WebSocket here.')
  })
}
