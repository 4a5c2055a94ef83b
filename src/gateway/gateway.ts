// The gateway: where agent connections come in, whatever carries them. Connections that have not
// authenticated yet are admitted within a budget (admission.ts).
import { PreAuthAdmission } from './admission.ts'
import {
  type GatewayEvents,
  GatewaySession,
  type GatewaySettings,
  type GatewayTransport,
  type SessionOptions,
} from './session.ts'

export class Gateway {
  /** Places for connections still authenticating. */
  readonly admission = new PreAuthAdmission()

  constructor(
    private readonly settings: GatewaySettings,
    private readonly events: GatewayEvents,
  ) {}

  /** A new connection: its session sends the challenge at once. */
  accept(transport: GatewayTransport, options: SessionOptions = { sharesCommits: false }): GatewaySession {
    const session = new GatewaySession(transport, this.settings, this.events, options)
    session.open()
    return session
  }
}
