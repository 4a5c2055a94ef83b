import { Elysia } from 'elysia'
import {
  AUTHENTICATION_METHOD,
  DISCOVERY_PATHS,
  type DiscoveryDocument,
  GATEWAY_PATH,
  PAIRING_PATH,
} from '../../protocol/discovery.ts'
import { PROTOCOL_VERSION } from '../../protocol/limits.ts'
import type { ApiContext } from '../context.ts'

export function discoveryRoutes({ serverId, serverName, serverVersion, challengeTtlSeconds }: ApiContext) {
  const document = (): DiscoveryDocument => ({
    protocolVersion: PROTOCOL_VERSION,
    server: { id: serverId, name: serverName(), version: serverVersion },
    endpoints: { pairing: PAIRING_PATH, gateway: GATEWAY_PATH },
    authentication: { method: AUTHENTICATION_METHOD, challengeTtlSeconds },
  })
  // Stock OpenPrinter agents ask at /.well-known/openprinter; the printservice path is the brand's.
  const [openprinter, printservice] = DISCOVERY_PATHS
  return new Elysia().get(printservice, document).get(openprinter, document)
}
