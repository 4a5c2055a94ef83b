// How the hub names itself on the LAN, in the dashboard and on printed pages: its name, its
// machine, its LAN addresses, the URL to reach it.
import { hostname, networkInterfaces } from 'node:os'

/** True for the wildcard addresses that listen on every interface of the machine. */
export function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::'
}

export interface HubOnTheLan {
  name: string
  url: string
  addresses: string[]
}

/** The machine's LAN addresses (IPv4 first). */
export function lanAddresses(): string[] {
  const all = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((address) => !address.internal)
  return [...all.filter((a) => a.family === 'IPv4'), ...all.filter((a) => a.family !== 'IPv4')].map((a) => a.address)
}

/** How people on the LAN reach a hub listening on `host`:`port`: its first LAN address when it listens on all. */
export function hubOnTheLan(
  serverName: string,
  host: string,
  port: number,
  scheme: 'http' | 'https' = 'http',
): HubOnTheLan {
  const addresses = lanAddresses()
  const shown = isWildcardHost(host) ? (addresses[0] ?? '127.0.0.1') : host
  return {
    name: `${serverName} (${hostname()})`,
    url: `${scheme}://${shown.includes(':') ? `[${shown}]` : shown}:${port}/`,
    addresses,
  }
}
