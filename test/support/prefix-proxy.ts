// The hub as another OpenPrinter service would look to an agent: behind a reverse proxy that mounts
// it under a path prefix (as https://example.com/print/ would), answers discovery at one path only
// (by default the protocol's own, /.well-known/openprinter, as a stock host does), and rewrites the discovery
// document's endpoints to carry the prefix (as such a host must: reference 1.3). HTTP requests and
// the gateway's WebSocket are passed through to the hub.
import type { ServerWebSocket } from 'bun'

interface Pipe {
  target: string
  upstream?: WebSocket
  /** Frames from the agent before the hub's side was open. */
  early: (string | Uint8Array<ArrayBuffer>)[]
}

export interface PrefixProxy {
  /** The base URL an agent is given, with its prefix and a trailing slash. */
  url: string
  /** What the proxy was asked, in order (method and path). */
  requests: string[]
  stop(): void
}

/** `discovery`: the one discovery path the service answers (a stock host has only the protocol's). */
export function prefixProxy(
  hubUrl: string,
  prefix: string,
  discovery: '/.well-known/openprinter' | '/.well-known/printservice' = '/.well-known/openprinter',
): PrefixProxy {
  const requests: string[] = []
  const hub = new URL(hubUrl)
  const server = Bun.serve<Pipe, never>({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request, server) {
      const url = new URL(request.url)
      requests.push(`${request.method} ${url.pathname}`)
      if (!url.pathname.startsWith(`${prefix}/`)) return new Response('Not here.', { status: 404 })
      const path = url.pathname.slice(prefix.length)
      if (path.startsWith('/.well-known/') && path !== discovery && !path.endsWith('/gateway'))
        return new Response('Not here.', { status: 404 })
      if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') {
        const target = `ws://${hub.host}${path}`
        return server.upgrade(request, { data: { target, early: [] } })
          ? undefined
          : new Response('Upgrade failed.', { status: 400 })
      }
      const upstream = await fetch(`${hub.origin}${path}${url.search}`, {
        method: request.method,
        headers: { 'content-type': request.headers.get('content-type') ?? 'application/octet-stream' },
        body: request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer(),
      })
      if (path !== discovery || upstream.status !== 200)
        return new Response(upstream.body, { status: upstream.status, headers: upstream.headers })
      const document = (await upstream.json()) as { endpoints: Record<string, string> }
      for (const [name, endpoint] of Object.entries(document.endpoints))
        document.endpoints[name] = `${prefix}${endpoint}`
      return Response.json(document)
    },
    websocket: {
      open(ws: ServerWebSocket<Pipe>) {
        const upstream = new WebSocket(ws.data.target)
        ws.data.upstream = upstream
        upstream.onopen = () => {
          for (const frame of ws.data.early.splice(0)) upstream.send(frame)
        }
        upstream.onmessage = (event) =>
          ws.send(typeof event.data === 'string' ? event.data : new Uint8Array(event.data as ArrayBuffer))
        upstream.onclose = (event) => ws.close(event.code, event.reason)
      },
      message(ws: ServerWebSocket<Pipe>, message) {
        const frame = typeof message === 'string' ? message : new Uint8Array(message)
        if (ws.data.upstream?.readyState === WebSocket.OPEN) ws.data.upstream.send(frame)
        else ws.data.early.push(frame)
      },
      close(ws: ServerWebSocket<Pipe>, code, reason) {
        ws.data.upstream?.close(code === 1005 ? 1000 : code, reason)
      },
    },
  })
  return { url: `http://127.0.0.1:${server.port}${prefix}/`, requests, stop: () => server.stop(true) }
}
