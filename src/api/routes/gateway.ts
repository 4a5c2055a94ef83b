// The gateway's WebSocket endpoint. The upgrade goes through Elysia, but frames are taken raw:
// Elysia's own .ws() parses text frames as JSON before a handler sees them, and the protocol
// must see the exact text (its size, its UTF-8, duplicate keys) to decode it by the rules.
import type { ServerWebSocket } from 'bun'
import { Elysia } from 'elysia'
import { ApiError, rateLimited } from '../../http/errors.ts'
import { remoteAddress } from '../../http/failure-rate-limit.ts'
import { ADMISSION_RETRY_AFTER_MS } from '../../gateway/admission.ts'
import { GATEWAY_PATH } from '../../protocol/discovery.ts'
import { MAX_FRAME_BYTES } from '../../protocol/limits.ts'
import type { Gateway } from '../../gateway/gateway.ts'
import type { GatewaySession } from '../../gateway/session.ts'

/**
 * Bun closes a connection (1009) that sends a frame above this; a little above the protocol's
 * 2 MiB, the session answers a too-large frame the protocol's way. A frame still arriving is held
 * up to this size: connections that have not authenticated are few (gateway/admission.ts).
 */
export const MAX_WEBSOCKET_PAYLOAD = MAX_FRAME_BYTES + 65_536

/** Bun's own idle limit, well above the heartbeat interval: heartbeats decide liveness. */
export const WEBSOCKET_IDLE_TIMEOUT_SECONDS = 120

interface SocketData {
  session?: GatewaySession
  open(ws: ServerWebSocket<SocketData>): void
  message(ws: ServerWebSocket<SocketData>, message: string | Buffer): void
  close(ws: ServerWebSocket<SocketData>, code: number): void
}

export function gatewayRoute(gateway: Gateway) {
  return new Elysia().get(GATEWAY_PATH, ({ request, server, set }) => {
    // Before the upgrade: a stranger over the budget costs an HTTP answer, not a WebSocket.
    const admission = gateway.admission.admit(remoteAddress(request, server))
    if (!admission)
      throw rateLimited(
        'rate_limited',
        'Too many connections are authenticating at the gateway now; try again shortly.',
        ADMISSION_RETRY_AFTER_MS,
      )
    const data: SocketData = {
      open(ws) {
        data.session = gateway.accept(
          {
            send(text) {
              // 0 means Bun dropped the frame; -1 means it is queued (backpressure), which is fine.
              if (ws.sendText(text) === 0) throw new Error('the frame could not be sent')
            },
            close(code, reason) {
              ws.close(code, reason)
            },
            remoteAddress: ws.remoteAddress,
          },
          { sharesCommits: false, admission },
        )
      },
      message(_ws, message) {
        data.session?.receive(typeof message === 'string' ? message : new Uint8Array(message))
      },
      close(_ws, code) {
        admission.release()
        data.session?.transportClosed(code)
      },
    }
    // The 101 carries the headers every answer of the hub does (a request ID, no caching, no
    // sniffing: set by http/app.ts), as Bun sends only what it is given here.
    if (!server?.upgrade(request, { data, headers: set.headers as Record<string, string> })) {
      admission.release()
      throw new ApiError('upgrade_required', 'This is the agent gateway: open a WebSocket here.')
    }
    // What the request log says for it (Bun has answered; nothing returned here is sent).
    set.status = 101
  })
}
