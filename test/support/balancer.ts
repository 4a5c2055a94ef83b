// A TCP load balancer in front of a cluster's nodes, as a venue's agents reach a hosted printhub: each connection goes
// to the next node that takes it (round robin, skipping one that refuses); a node taken out of it has its open
// connections cut, as a balancer's health check does with a node that stopped answering.
import type { Socket } from 'bun'

export interface Balancer {
  port: number
  url: string
  /** Sends no new connection to the node on `port`, and cuts the ones it has. */
  takeOut(port: number): void
  /** Sends connections to the node on `port` again. */
  putBack(port: number): void
  stop(): void
}

interface Link {
  upstream?: Socket<Link>
  /** What the client sent before its node's connection was open. */
  pending: Uint8Array[]
  port?: number
  client: Socket<Link>
}

export function startBalancer(ports: readonly number[]): Balancer {
  const out = new Set<number>()
  const links = new Set<Link>()
  let next = 0

  async function connect(link: Link): Promise<void> {
    for (let tried = 0; tried < ports.length; tried++) {
      const port = ports[next++ % ports.length]!
      if (out.has(port)) continue
      try {
        const upstream = await Bun.connect<Link>({
          hostname: '127.0.0.1',
          port,
          data: link,
          socket: {
            data: (_socket, data) => void link.client.write(data),
            close: () => void link.client.end(),
            error: () => void link.client.end(),
          },
        })
        link.upstream = upstream
        link.port = port
        for (const chunk of link.pending) upstream.write(chunk)
        link.pending = []
        return
      } catch {
        // That node refuses: the next one.
      }
    }
    link.client.end()
  }

  const server = Bun.listen<Link>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(client) {
        const link: Link = { pending: [], client }
        client.data = link
        links.add(link)
        void connect(link)
      },
      data(client, data) {
        const link = client.data
        if (link.upstream) link.upstream.write(data)
        else link.pending.push(new Uint8Array(data))
      },
      close(client) {
        links.delete(client.data)
        client.data.upstream?.end()
      },
      error(client) {
        client.data.upstream?.end()
      },
    },
  })

  return {
    port: server.port,
    url: `http://127.0.0.1:${server.port}`,
    takeOut(port) {
      out.add(port)
      for (const link of links)
        if (link.port === port) {
          link.client.end()
          link.upstream?.end()
        }
    },
    putBack: (port) => void out.delete(port),
    stop() {
      for (const link of links) {
        link.client.end()
        link.upstream?.end()
      }
      server.stop(true)
    },
  }
}
