// The print agent: receive → validate → persist → acknowledge → render → submit → persist the
// result → report (OpenPrinter v1 section 7.3), with the ledger making every step durable. One
// implementation, placed inside the hub (built-in) or on another machine (remote).
import { describeError, Log, type Logger } from '../platform/log.ts'
import { isDeepStrictEqual } from 'node:util'
import type { PrinterDescriptor, ServerMessage } from '../protocol/frames.ts'
import { renderOffThread } from '../render/off-thread.ts'
import { polls, servePolling, type Transports } from '../transports/submit.ts'
import type { PrinterState } from '../domain/printer-state.ts'
import { DeviceFinder } from '../transports/devices.ts'
import { backoffDelay, RECONNECT_BACKOFF } from '../domain/backoff.ts'
import { describePrinter, served, type ServedPrinter } from './catalog.ts'
import { STATUS_POLL_MS } from '../domain/settings.ts'
import { StatusWatch } from './status-watch.ts'
import { RenderAhead } from './render-ahead.ts'
import { AgentConnection, agentFrame, type Ending } from './connection.ts'
import { PrinterQueues } from './printer-queues.ts'
import { Printing } from './printing.ts'
import type { AgentOptions } from './agent-options.ts'
import { ReportSender } from './report-sender.ts'
import { Resumption } from './resume.ts'

/** Where an agent without a log says nothing. */
const SILENT = Log.silent().for('agent')

/** How often the agent looks for printers added or changed in its catalog. */
export const CATALOG_POLL_MS = 1_000
/** How long stopping waits for tickets being written (within systemd's 20 s stop timeout). */
export const STOP_GRACE_MS = 10_000
export { QUEUE_RESTART_MS } from './printer-queues.ts'

export class Agent {
  private connection: AgentConnection | undefined
  private stopped = false
  private readonly started = performance.now()
  /** Settles when the agent stops: nobody waits longer for a printer's confirmation. */
  private readonly stopping = Promise.withResolvers<void>()
  private revision = 0
  /** The catalog as last read (every CATALOG_POLL_MS, and when the hub says it changed). */
  private printers = new Map<string, ServedPrinter>()
  private described: PrinterDescriptor[] = []
  private catalogTimer: Timer | undefined
  private loop: Promise<void> = Promise.resolve()
  private wake: (() => void) | undefined
  /** Why the hub refused the agent, when it did (a revoked credential), for people to read. */
  refusal: string | undefined

  private readonly status: StatusWatch
  private readonly transports: Transports
  private readonly reports: ReportSender
  private readonly resumption: Resumption
  private readonly rendering: RenderAhead
  private readonly printing: Printing
  private readonly queues: PrinterQueues = new PrinterQueues({
    next: (printerId) => this.options.ledger.nextReceived(printerId),
    print: (job) => this.printing.print(job),
    failed: (job, error) => {
      // A bug must not stop the printer's queue or the process: the job fails, the next goes on.
      this.log.error('a job failed unexpectedly', {
        job: job.jobId,
        printer: job.printerId,
        error: describeError(error),
      })
      this.printing.fail(job, {
        code: 'agent.internal_error',
        message: 'The agent failed unexpectedly while printing this job; it may have printed.',
        retryable: false,
      })
    },
    handedOver: (printerId) => this.rendering.handedOver(printerId),
    stopped: () => this.stopped,
    log: () => this.log,
  })

  constructor(private readonly options: AgentOptions) {
    this.reports = new ReportSender(options.ledger, () => this.connection, options.log ?? SILENT)
    this.resumption = new Resumption(
      options.ledger,
      this.reports,
      () => this.connection,
      (connection, correlationId) =>
        connection.send(
          agentFrame('agent.printer_inventory', { revision: this.revision, printers: this.described }, correlationId),
        ),
    )
    this.rendering = new RenderAhead(options.render ?? ((request) => renderOffThread(request)), (printerId, afterSeq) =>
      this.printing.nextToRender(printerId, afterSeq),
    )
    this.transports = {
      virtuals: options.virtuals,
      devices: options.devices ?? new DeviceFinder(),
      confinement: options.confinement,
      ...options.polling,
    }
    this.status = new StatusWatch(
      options.statusPollMs ?? STATUS_POLL_MS.default,
      this.transports,
      (printerId, state) => {
        this.describe()
        options.printerStateChanged?.(printerId, state)
      },
    )
    this.printing = new Printing({
      ledger: options.ledger,
      transports: this.transports,
      status: this.status,
      rendering: this.rendering,
      queues: this.queues,
      reports: this.reports,
      printer: (printerId) => this.printers.get(printerId),
      hubInProcess: () => this.connection?.hubInProcess === true,
      stopped: () => this.stopped,
      stopping: this.stopping.promise,
      intents: options.intents,
    })
  }

  /** What was last learned of a printer's state from the printer itself; undefined when nothing was. */
  printerState(printerId: string): PrinterState | undefined {
    return this.status.stateOf(printerId)
  }

  /** What its inventory says of a printer's availability (what was learned of it, else what its connection says). */
  printerAvailability(printerId: string): PrinterDescriptor['availability'] | undefined {
    const printer = this.printers.get(printerId)
    return printer && describePrinter(printer, this.status.of(printer.id)).availability
  }

  /** Recovers from the last run, then connects and keeps connecting until stopped. */
  start(): void {
    this.recover()
    this.refreshCatalog()
    this.catalogTimer = setInterval(() => this.refreshCatalog(), CATALOG_POLL_MS)
    this.status.start(
      () => this.printers.values(),
      (printerId) => this.queues.has(printerId),
    )
    for (const printerId of this.options.ledger.printersWithWork()) this.queues.run(printerId)
    this.loop = this.connectLoop()
  }

  /**
   * Stops taking jobs. A ticket already being written is finished, not cut in half; one that
   * has not finished within STOP_GRACE_MS (a printer that stopped reading) is cut off.
   */
  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.catalogTimer)
    this.status.stop()
    // A ledger in memory (a cluster node's agent) keeps no report for later: what is printing ends, its printer's word
    // awaited, and is told, first.
    if (this.options.reportsBeforeClosing) {
      await this.settle()
      this.queues.held.makeAll()
    }
    this.stopping.resolve()
    this.connection?.close()
    this.wake?.()
    await this.loop
    await this.settle()
    this.queues.held.makeAll()
  }

  /** Waits for the printers' work under way to end (stopped past the grace). */
  private async settle(): Promise<void> {
    const settled = this.queues.settled()
    let timer: Timer | undefined
    const finished = await Promise.race([
      settled.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), STOP_GRACE_MS))),
    ])
    clearTimeout(timer)
    if (!finished) {
      this.printing.abortAll()
      await settled
    }
  }

  /** Settles when the agent stopped trying to connect: stopped, or refused (see `refusal`). */
  get done(): Promise<void> {
    return this.loop
  }

  private get log(): Logger {
    return this.options.log ?? SILENT
  }

  /**
   * A crash between the record of intent and the record of the result leaves a job `submitting`
   * (its bytes may have reached the printer) or `submitted` (unconfirmed). Sending it again could
   * print it twice: it fails as `job.recovery_uncertain` so a person decides whether to reprint,
   * unless the ledger knows it was never handed over (it then waits to print) or that it printed
   * (the crash came between the printer's word and its record: it is completed).
   */
  private recover(): void {
    for (const job of this.options.ledger.recover()) {
      // Its printed mark is in this run's file already (marks-run.ts): it is only recorded here.
      if (job.printed) {
        this.printing.printed(job, job.state === 'submitted')
        continue
      }
      const when =
        job.state === 'submitting'
          ? 'while sending this job to the printer; it may have printed'
          : 'before the printer confirmed this job; it probably printed'
      this.printing.fail(job, {
        code: 'job.recovery_uncertain',
        message: `The agent stopped ${when}. Check the printer and reprint if needed.`,
        retryable: false,
      })
    }
  }

  private async connectLoop(): Promise<void> {
    let failures = 0
    while (!this.stopped) {
      const connection = new AgentConnection({
        credentials: this.options.credentials,
        key: this.options.key,
        version: this.options.version,
        uptimeSeconds: () => Math.floor((performance.now() - this.started) / 1000),
        events: {
          ready: () => {
            failures = 0
            this.onReady(connection).catch((error) =>
              this.log.warn('could not resume with the hub', { error: describeError(error) }),
            )
          },
          frame: (_, message, size) => this.onFrame(connection, message, size),
        },
      })
      this.connection = connection
      await connection.open(this.options.connector)
      const ending: Ending = await connection.ended
      if (this.stopped) return
      // One budget for the connection's lines: a hub that keeps refusing cannot fill the log.
      this.log[ending.reconnect ? 'warn' : 'error'](
        `disconnected: ${ending.reason}`,
        { reconnect: ending.reconnect },
        { limit: 'agent connection' },
      )
      // Refused (or told not to come back): trying again would only be refused again.
      if (!ending.reconnect) {
        this.refusal = ending.reason
        return
      }
      const delay = ending.retryAfterMs ?? backoffDelay(RECONNECT_BACKOFF, failures++)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay)
        this.wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
  }

  // ---- Connected: inventory, replays, frames ----

  /** Reports first, then acknowledgements of stored jobs, then the inventory (resume.ts). */
  private async onReady(connection: AgentConnection): Promise<void> {
    this.log.info('connected to the hub', { agent: this.options.credentials.agentId }, { limit: 'agent connection' })
    await this.resumption.resume(connection)
  }

  private onFrame(
    connection: AgentConnection,
    message: Exclude<ServerMessage, { type: 'server.hello' | 'server.heartbeat' | 'server.disconnect' }>,
    size: number,
  ): void {
    switch (message.type) {
      case 'server.print_job':
        return void this.receive(connection, message.payload, message.messageId, size).catch((error) =>
          this.log.error('a job could not be stored', { job: message.payload.jobId, error: describeError(error) }),
        )
      case 'server.cancel_job':
        return this.printing.cancel(message.payload.jobId)
      case 'server.request_printer_inventory':
        return this.sendInventory(connection, message.messageId)
      case 'server.configuration_invalidated':
        this.refreshCatalog()
        return this.sendInventory(connection)
    }
  }

  /** Not while the connection is resuming: the hub hears of every job this agent has first (resume.ts). */
  private sendInventory(connection: AgentConnection, correlationId?: string): void {
    this.resumption.inventory(connection, correlationId)
  }

  private refreshCatalog(): void {
    const printers = this.options.catalog.printers()
    this.printers = new Map(printers.map((printer) => [printer.id, served(printer)]))
    this.rendering.keepOnly(new Set(this.printers.keys()))
    servePolling(
      this.transports,
      [...this.printers.values()].flatMap((printer) => (printer.parsed.ok ? [printer.parsed.connection] : [])),
    )
    this.describe()
  }

  /** Asks its printers that poll their state now: one said something new (the others are not asked). */
  printerNews(): void {
    this.status.askNow((printer) => printer.parsed.ok && polls(printer.parsed.connection))
  }

  /** Sends the inventory when what it says changed: printers added or removed, or their availability. */
  private describe(): void {
    const described = [...this.printers.values()].map((printer) => describePrinter(printer, this.status.of(printer.id)))
    if (this.revision > 0 && isDeepStrictEqual(described, this.described)) return
    this.described = described
    this.revision++
    if (this.connection?.isReady) this.sendInventory(this.connection)
  }

  // ---- Jobs ----

  private async receive(
    connection: AgentConnection,
    payload: Extract<ServerMessage, { type: 'server.print_job' }>['payload'],
    messageId: string,
    size: number,
  ): Promise<void> {
    const outcome = this.options.ledger.receive(payload, messageId, size)
    if (outcome.kind === 'conflict') {
      // The reference answers nothing: the hub's acknowledgement timeout decides.
      this.log.warn(`job refused: ${outcome.reason}`, { job: payload.jobId, printer: payload.printerId })
      return
    }
    // Acknowledged once the hub may be told (ledger.ts), before any report of the job, as the protocol
    // orders them: a wait for the disk is asked for before the printer's work starts (the claim then
    // shares its flush); told at once, the work starts after. A repeat does nothing else.
    const stored = this.options.ledger.tellsHubAtOnce ? undefined : this.options.ledger.durable()
    if (outcome.kind === 'new') this.rendering.arrived(payload.printerId)
    if (stored && outcome.kind === 'new') this.queues.run(payload.printerId)
    if (stored) await stored
    try {
      connection.send(
        agentFrame(
          'agent.job_received',
          {
            jobId: payload.jobId,
            idempotencyKey: payload.idempotencyKey,
            status: 'received',
            receivedAt: new Date().toISOString(),
          },
          messageId,
        ),
      )
      // A printhub hub sends a job again after a restart to learn how it ended: the reports it may
      // have missed go again, unchanged (their messageIds make repeats harmless).
      if (outcome.kind === 'duplicate' && connection.toPrinthub)
        for (const report of outcome.job.reports) connection.sendText(report)
    } finally {
      if (!stored && outcome.kind === 'new') this.queues.run(payload.printerId)
    }
  }
}
