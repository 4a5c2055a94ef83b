// Where a hub or a cluster's node listens, the same way for both: the HTTP app's options, and its address as the
// machine reaches it.
import { MAX_WEBSOCKET_PAYLOAD, WEBSOCKET_IDLE_TIMEOUT_SECONDS } from '../api/routes/gateway.ts'
import type { httpApp } from '../http/app.ts'
import { BODY_TIMEOUT_MS } from '../http/json-body.ts'
import { isWildcardHost } from '../services/lan.ts'
import { ConfigError, type HubConfig } from './config.ts'

/**
 * Idle connections close after this many seconds. Bun looks at them every 4 s, so one may close up
 * to 4 s sooner, which must still be after a body's own deadline (BODY_TIMEOUT_MS): a body that
 * stops coming is answered 408 before its connection can be closed without an answer.
 */
export const IDLE_TIMEOUT_SECONDS = BODY_TIMEOUT_MS / 1000 + 6

type ListenOptions = Parameters<ReturnType<typeof httpApp>['listen']>[0]

/** Starts `app` listening as `config` says; a ConfigError naming the address when it cannot. */
export function listenAsHub(app: { listen(options: ListenOptions): unknown }, config: Readonly<HubConfig>): void {
  try {
    app.listen({
      hostname: config.host,
      port: config.port,
      idleTimeout: IDLE_TIMEOUT_SECONDS,
      // Elysia would share the port with another process; two hubs on one port would split
      // agents and jobs between two databases.
      reusePort: false,
      // The routes bound every body themselves, reading at most their limit, and answer in the
      // error envelope; Bun streams bodies, so it needs no limit of its own.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      websocket: {
        maxPayloadLength: MAX_WEBSOCKET_PAYLOAD,
        idleTimeout: WEBSOCKET_IDLE_TIMEOUT_SECONDS,
        perMessageDeflate: false,
      },
      ...(config.tls ? { tls: { cert: Bun.file(config.tls.certFile), key: Bun.file(config.tls.keyFile) } } : {}),
    })
  } catch (error) {
    throw new ConfigError(
      `cannot listen on ${config.host} port ${config.port}: ` +
        `${(error as Error).message} (is the address right and the port free?)`,
    )
  }
}

/** The hub's address on this machine: a wildcard host is reached on 127.0.0.1. */
export function localUrl(config: Readonly<HubConfig>, port: number): string {
  const host = isWildcardHost(config.host) ? '127.0.0.1' : config.host
  return `${config.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`
}
