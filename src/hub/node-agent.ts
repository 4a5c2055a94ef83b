// A cluster node's own agent (docs/decisions.md, "Delivery across nodes"): it drives the built-in agent's printers
// this node took (dispatcher/cluster-printers.ts), as one hub's built-in agent drives its own, over a link in this
// process. What it received lives in memory only: the cluster's database is the record. A node that restarts, or one
// that takes a printer over, starts from it, and each intent to print is recorded there, under the printer's lease,
// before the first byte (a job whose intent is refused is not printed).
//
// It authenticates with a key of this process, which only this link accepts (SessionOptions.ownCredential): no key of
// the built-in agent is kept anywhere, and nothing on the network can speak as it.
import { Agent } from '../agent/agent.ts'
import { AgentKey } from '../agent/identity.ts'
import { Ledger } from '../agent/ledger.ts'
import type { NodePrinters } from '../dispatcher/cluster-printers.ts'
import { VERSION } from '../domain/version.ts'
import type { Gateway } from '../gateway/gateway.ts'
import type { Logger } from '../platform/log.ts'
import type { PrinterState } from '../domain/printer-state.ts'
import type { Confinement } from '../transports/confine.ts'
import { VirtualPrinters } from '../transports/virtual.ts'
import type { CloudPrnt } from '../transports/cloudprnt.ts'
import type { EpsonSdp } from '../transports/epson-sdp.ts'
import type { BuiltinAgent } from './builtin-agent.ts'
import { inMemoryConnector } from './in-memory-link.ts'

/** What a node's agent runs with. */
export interface NodeAgentOptions {
  nodeId: string
  printers: NodePrinters
  gateway: Gateway
  /** What its printers may reach: the node's output folder, device files, not the node's own port. */
  confinement: Confinement
  statusPollMs: number
  log: Logger
  /** Told when a printer said something new of itself. */
  printerStateChanged: (agentPrinterId: string, state: PrinterState) => void
  /** The printers that poll this node: those its agent drives are offered their jobs when they poll. */
  polling: { cloudPrnt: CloudPrnt; epsonSdp: EpsonSdp }
}

export async function startNodeAgent(options: NodeAgentOptions): Promise<BuiltinAgent> {
  const { printers, log } = options
  const key = AgentKey.ephemeral()
  const credentials = { agentId: printers.agentId, keyId: `key_${options.nodeId}` }
  const ownCredential = { ...credentials, credential: { publicKey: await key.publicKey(), revoked: false } }
  const ledger = Ledger.inMemory(log)
  const agent = new Agent({
    ledger,
    key,
    credentials,
    catalog: { printers: () => printers.catalog() },
    connector: inMemoryConnector(options.gateway, { sharesCommits: false, ownCredential }),
    virtuals: new VirtualPrinters(),
    confinement: options.confinement,
    version: VERSION,
    log,
    statusPollMs: options.statusPollMs,
    intents: (job) => printers.recordIntent(job),
    reportsBeforeClosing: true,
    printerStateChanged: options.printerStateChanged,
    polling: options.polling,
  })
  agent.start()
  return {
    agent,
    async stop() {
      await agent.stop()
      ledger.close()
    },
  }
}
