// The gateway: where agent connections come in, whatever carries them.
import { type GatewayEvents, GatewaySession, type GatewaySettings, type GatewayTransport } from './session.ts'

export class Gateway {
  constructor(
    private readonly settings: GatewaySettings,
    private readonly events: GatewayEvents,
  ) {}

  /** A new connection: its session sends the challenge at once. */
  accept(transport: GatewayTransport): GatewaySession {
    const session = new GatewaySession(transport, this.settings, this.events)
    session.open()
    return session
  }
}
