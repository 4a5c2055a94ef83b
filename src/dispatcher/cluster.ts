// A cluster node's dispatcher (docs/decisions.md, "Delivery across nodes"): it holds the agents connected to this
// node, each under a lease `agent:ID` renewed every third of its length, and drives their printers' lanes
// (cluster-lanes.ts). An agent's reports become job state steps fenced by its lease, one after another in the order
// they came. A node that accepts a job for a printer it does not drive sends the other nodes a hint; every node
// also looks every `pollMs` at its printers with jobs waiting (one query), so a lost hint delays a job by at most
// that. A node whose lease was taken (it stalled past it) stops at once: it drops the agent's session, and its later
// writes change nothing.
// The node's own agent, in its process, drives the built-in agent's printers this node took (cluster-printers.ts).
import type { AgentListener, SessionRegistry } from '../gateway/registry.ts'
import type { GatewaySession, JobReport } from '../gateway/session.ts'
import { failure } from '../protocol/failures.ts'
import type { PrinterDescriptor } from '../protocol/frames.ts'
import type { Job } from '../protocol/job.ts'
import type { ClusterStore } from '../storage/cluster-store.ts'
import type { PrinterRecord } from '../domain/records.ts'
import { cancelFrame } from './cancel-frame.ts'
import { NodePrinters } from './cluster-printers.ts'
import { MaintenanceLease } from './maintenance-lease.ts'
import { agentLease, type ClusterSettings, ClusterLanes, type HeldAgent, LOCKED_ROWS } from './cluster-lanes.ts'
import { parseWireJobId, wireJobId } from './wire-identity.ts'

/** Jobs whose time ran out, expired in one step of the sweep. */
const EXPIRE_PER_STEP = 64

/** Reports a session may say before this node holds its agent, kept at most (a printhub agent says them again). */
const MAX_WAITING_REPORTS = 1_000

export class ClusterDispatcher extends ClusterLanes implements AgentListener {
  /** The last inventory of sessions whose agent's lease is not taken yet: applied once it is. */
  private readonly waitingInventory = new Map<GatewaySession, readonly PrinterDescriptor[]>()
  /** Reports of sessions whose agent's lease is not taken yet: handled once it is. */
  private readonly waitingReports = new Map<GatewaySession, JobReport[]>()
  private readonly cancelsSent = new Set<string>()
  /** Each agent's reports as last chained (stop() lets them be recorded first). */
  private readonly lastReports = new Map<string, Promise<void>>()
  private timers: Timer[] = []
  private readonly maintenance: MaintenanceLease
  /** When this node started (agents away count from then at the earliest). */
  private startedAt = 0
  private unlisten: (() => Promise<void>) | undefined

  /** The built-in agent's printers this node drives, when it runs the node's agent (hub/node-agent.ts). */
  readonly nodePrinters: NodePrinters | undefined

  constructor(
    store: ClusterStore,
    private readonly sessions: SessionRegistry,
    settings: ClusterSettings,
    /** The cluster's built-in agent, whose printers this node's agent drives, under leases of their own. */
    builtinAgentId?: string,
  ) {
    super(store, settings)
    sessions.listen(this)
    this.maintenance = new MaintenanceLease(store, settings)
    this.nodePrinters =
      builtinAgentId === undefined
        ? undefined
        : new NodePrinters(store, settings, builtinAgentId, (id) => this.printersChanged(id, builtinAgentId))
  }

  async start(): Promise<void> {
    this.startedAt = this.settings.now()
    this.unlisten = await this.store.listen((hint) => this.heard(hint))
    this.scheduleRenewal()
    await this.nodePrinters?.renew()
    this.timers = [
      setInterval(() => void this.lookAtQueued().catch(() => {}), this.settings.pollMs),
      setInterval(() => void this.sweep().catch(() => {}), this.settings.sweepMs),
    ]
  }

  /** Stops driving printers and gives the leases up, so that other nodes take the agents at once. */
  async stop(): Promise<void> {
    this.stopLanes()
    for (const timer of this.timers) clearInterval(timer)
    await this.unlisten?.().catch(() => {})
    this.sessions.disconnectAll('server_shutdown', 'The hub is shutting down.', 1_000)
    // What the agents said before they went is recorded while this node still holds their leases.
    await Promise.allSettled(this.lastReports.values())
    const held = [...this.agents.values()].filter((agent) => !agent.printerLeases)
    this.agents.clear()
    this.printerAgents.clear()
    await Promise.allSettled([
      ...held.map((agent) => this.store.releaseLease(agentLease(agent.agentId), this.settings.nodeId, agent.fence)),
      this.nodePrinters?.release(),
      this.maintenance.release(),
    ])
  }

  protected override renewLeases(): void {
    super.renewLeases()
    void this.nodePrinters?.renew()
  }

  // ---- New jobs and cancellations, told by the services of this node or hinted by another ----

  jobCreated(printerId: string): void {
    if (this.printerAgents.has(printerId)) this.scheduleDispatch(printerId)
    else this.hint(`printer:${printerId}`)
  }

  cancelRequested(): void {
    void this.askCancels().catch(() => {})
    this.hint('cancel')
  }

  private hint(hint: string): void {
    this.store.notify(hint).catch((error: unknown) =>
      this.settings.log.warn('a hint to the other nodes was not sent; they find the work at their next look', {
        error: String(error),
      }),
    )
  }

  private heard(hint: string): void {
    if (hint.startsWith('printer:')) this.scheduleDispatch(hint.slice('printer:'.length))
    else if (hint === 'cancel') void this.askCancels().catch(() => {})
  }

  // ---- What the agents say (through the session registry) ----

  connected(session: GatewaySession): void {
    void this.hold(session).catch((error: unknown) => this.askAgain(session, 'an agent could not be taken on', error))
  }

  /** Takes the agent's lease (waiting while another node still holds it), then drives its printers. */
  private async hold(session: GatewaySession): Promise<void> {
    const agentId = session.agentId!
    if (session.isNodeAgent) return this.holdNodeAgent(session)
    for (;;) {
      if (this.stopped || !session.isConnected) return
      const asked = performance.now()
      const ttl = this.settings.leaseMs()
      // The database away: asked again until it is back, or the agent goes.
      const lease = await this.store.takeLease(agentLease(agentId), this.settings.nodeId, ttl).catch(() => null)
      if (lease) {
        const held: HeldAgent = {
          agentId,
          session,
          fence: lease.fence,
          units: this.store.fenced({ resource: agentLease(agentId), fence: lease.fence }),
          validUntil: asked + ttl,
          printers: new Map(),
          reports: Promise.resolve(),
        }
        if (!session.isConnected || this.stopped) {
          // Gone meanwhile: its lease is given up at once, for the node it connects to next.
          await this.store.releaseLease(agentLease(agentId), this.settings.nodeId, lease.fence).catch(() => {})
          return
        }
        this.agents.set(agentId, held)
        await held.units.write((db) => db.agents.seen(agentId))
        return this.adopt(held)
      }
      // Another node holds it still (the agent's session there has not ended yet, or that node died): until it ends.
      await Bun.sleep(Math.min(1_000, ttl / 3))
    }
  }

  /** The node's own agent: held as long as it is connected, its printers each under a lease of its own. */
  private holdNodeAgent(session: GatewaySession): Promise<void> {
    const printerLeases = this.nodePrinters?.leases
    if (!printerLeases || this.stopped) return Promise.resolve()
    const agentId = session.agentId!
    const units = this.store
    // Seen now, as a paired agent is when it connects: the cluster's built-in agent is seen while a node runs.
    void units.write((db) => db.agents.seen(agentId)).catch(() => {})
    this.agents.set(agentId, {
      agentId,
      session,
      fence: 0,
      units,
      validUntil: Infinity,
      printers: new Map(),
      reports: Promise.resolve(),
      printerLeases,
    })
    return this.adopt(this.agents.get(agentId)!)
  }

  /** What the agent said before this node held it: its last inventory, then its reports. */
  private async adopt(held: HeldAgent): Promise<void> {
    const { session } = held
    const inventory = this.waitingInventory.get(session)
    const reports = this.waitingReports.get(session) ?? []
    this.waitingInventory.delete(session)
    this.waitingReports.delete(session)
    if (inventory) await this.takeInventory(held, inventory, true)
    for (const report of reports) this.report(session, report)
  }

  inventory(session: GatewaySession, printers: readonly PrinterDescriptor[]): void {
    const held = this.agents.get(session.agentId!)
    if (held?.session !== session) return void this.waitingInventory.set(session, printers)
    const first = held.printers.size === 0
    held.reports = held.reports
      .then(() => this.takeInventory(held, printers, first))
      .catch((error: unknown) => this.askAgain(session, "an agent's printers could not be recorded", error))
  }

  /** The agent's printers as it reports them; at its first inventory here, the jobs it holds are asked about again. */
  private async takeInventory(held: HeldAgent, printers: readonly PrinterDescriptor[], first: boolean): Promise<void> {
    const { agentId, units, session } = held
    const previous = held.printers
    let records: PrinterRecord[]
    if (held.printerLeases) {
      // The node's agent: of the printers this node took, those it says it drives now (the cluster's printers are not
      // its to replace).
      const reported = new Set(printers.map((printer) => printer.id))
      records = [...held.printerLeases.values()].flatMap(({ record }) =>
        reported.has(record.agentPrinterId) ? [record] : [],
      )
    } else {
      await units.write((db) => db.agents.replacePrinters(agentId, printers))
      records = await units.read((db) => db.printers.ofAgent(agentId))
    }
    for (const printerId of held.printers.keys()) this.printerAgents.delete(printerId)
    held.printers = new Map(records.map((record) => [record.id, record.agentPrinterId]))
    for (const record of records) this.printerAgents.set(record.id, agentId)
    for (const record of records) {
      // Reports sent just before the agent's last node stopped may never have arrived: a printhub agent answers a job
      // sent again with the reports of how it ended. A printer the node's agent drives from now on: the jobs its last
      // node held and never began to print (takeOverPrinter) are sent to it.
      if (held.printerLeases ? !previous.has(record.id) : first && session.isPrinthubAgent) {
        await this.sendHeldAgain(held, record.id)
      }
      this.scheduleDispatch(record.id)
    }
    this.settings.agentChanged?.(agentId)
  }

  closed(session: GatewaySession): void {
    const agentId = session.agentId!
    this.waitingInventory.delete(session)
    this.waitingReports.delete(session)
    const held = this.agents.get(agentId)
    // Attempts not yet confirmed on this session failed: the agent may never have seen them. Written under the
    // agent's lease (a newer session of it here holds the same), as the database allows: one not written stays out,
    // and is sent again as it was by whichever node holds the agent next.
    const failing = [...this.inFlight].filter(([, flight]) => flight.sessionId === session.id)
    const current = held?.session === session
    // At once, whatever the database says: no renewal keeps the lease of an agent gone from this node.
    if (current) this.drop(held)
    void (async () => {
      const reason = failure('agent.disconnected', 'The agent disconnected before it confirmed it received the job.')
      for (const [jobId, flight] of failing) {
        this.clearInFlight(jobId)
        const units = held && this.leaseOf(held, flight.printerId)?.units
        if (units && !this.stopped)
          await units.write(
            (db) => db.jobStates.failAttempt(jobId, flight.attempt, reason, this.retryDelay(flight.attempt)),
            LOCKED_ROWS,
          )
        this.scheduleDispatch(flight.printerId)
      }
      // The node's agent connects again by itself; its printers' leases stay this node's.
      if (!current || this.stopped || held.printerLeases) return
      await held.units.write((db) => db.agents.seen(agentId))
      await this.store.releaseLease(agentLease(agentId), this.settings.nodeId, held.fence)
      this.settings.agentChanged?.(agentId)
    })().catch(() => {})
  }

  report(session: GatewaySession, report: JobReport): void {
    const held = this.agents.get(session.agentId!)
    if (held?.session !== session) {
      // Said before this node holds the agent (while another node lets it go): kept until it does, a bounded few.
      const waiting = this.waitingReports.get(session) ?? []
      if (session.isConnected && waiting.length < MAX_WAITING_REPORTS) waiting.push(report)
      return void this.waitingReports.set(session, waiting)
    }
    held.reports = held.reports
      .then(() => this.handle(held, report))
      // A report lost is never guessed at: the agent connects again, and then says how its jobs ended.
      .catch((error: unknown) => this.askAgain(session, `a report on ${report.jobId} could not be recorded`, error))
    this.lastReports.set(held.agentId, held.reports)
  }

  private async handle(held: HeldAgent, report: JobReport): Promise<void> {
    const wire = parseWireJobId(report.jobId)
    const { session } = held
    const job = wire && (await this.store.read((db) => db.jobs.get(wire.jobId)))
    const units = job && this.leaseOf(held, job.printerId)?.units
    // A printer the node's agent no longer drives (another node took it): what it says of it changes nothing.
    if (held.printerLeases && job && !units) return
    // An agent reports only on jobs sent to its own printers.
    if (!wire || !job || !units || !held.printers.has(job.printerId))
      return this.settings.log.warn(
        'a report on a job not sent to this agent',
        { agent: held.agentId, job: report.jobId, report: report.kind },
        { limit: `reports ${held.agentId}` },
      )
    const { jobId, attempt } = wire
    let changed: Job | undefined
    switch (report.kind) {
      case 'received':
        changed = await units.write((db) => db.jobStates.markReceived(jobId, attempt, report.receivedAt), LOCKED_ROWS)
        break
      case 'submitted':
        changed = await units.write(
          (db) => db.jobStates.markSubmitted(jobId, attempt, report.submittedAt, session.isPrinthubAgent),
          LOCKED_ROWS,
        )
        break
      case 'completed':
        changed = await units.write(
          (db) => db.jobStates.markCompleted(jobId, attempt, report.completedAt, report.submittedAt),
          LOCKED_ROWS,
        )
        break
      case 'failed':
        if (this.inFlight.get(jobId)?.attempt === attempt) this.clearInFlight(jobId)
        changed = await units.write(
          (db) => db.jobStates.failAttempt(jobId, attempt, report.failure, this.retryDelay(attempt)),
          LOCKED_ROWS,
        )
        break
      case 'cancelled':
        changed = await units.write((db) => db.jobStates.markCancelled(jobId), LOCKED_ROWS)
        break
    }
    const now = changed ?? job
    // An older attempt printed after all while a newer one is out: the newer one is stopped. A receipt of a job whose
    // time ran out meanwhile: its agent is asked to drop it.
    const printedEarlier =
      changed &&
      changed.attemptCount > attempt &&
      (report.kind === 'submitted' || (report.kind === 'completed' && report.submittedAt !== undefined))
    if (printedEarlier)
      session.send(
        cancelFrame(
          wireJobId(jobId, now.attemptCount),
          'An earlier attempt of this job already printed.',
          this.settings.now(),
        ),
      )
    else if (!changed && report.kind === 'received' && now.state === 'EXPIRED')
      session.send(cancelFrame(report.jobId, 'The job expired.', this.settings.now()))
    if (now.state !== 'DISPATCHING' || report.kind === 'received') {
      const flight = this.inFlight.get(jobId)
      if (flight && (flight.attempt === attempt || now.state !== 'DISPATCHING')) this.clearInFlight(jobId)
    }
    this.scheduleDispatch(job.printerId)
  }

  // ---- Leases, cancellations and expiry ----

  private async sweep(): Promise<void> {
    if (this.stopped) return
    // The agents revoked (or gone), read once whatever the number held here.
    const paired = new Map((await this.store.read((db) => db.agents.list())).map((agent) => [agent.id, agent]))
    for (const held of this.agents.values())
      if (paired.get(held.agentId)?.revokedAt !== null)
        held.session.disconnect('credential_revoked', 'This agent was revoked.', false)
    await this.askCancels()
    if (!(await this.maintenance.maintains())) return
    const expired = await this.store.write((db) => db.jobStates.expire(EXPIRE_PER_STEP), LOCKED_ROWS)
    for (const job of expired) {
      // Its agent, when this node holds it, is asked to drop it; another node's agent is told at its receipt.
      if (this.clearInFlight(job.id))
        this.heldOf(job.printerId)?.session.send(
          cancelFrame(wireJobId(job.id, job.attempt), 'The job expired.', this.settings.now()),
        )
      this.scheduleDispatch(job.printerId)
    }
    // Until this node has run for the grace period, no agent counts as away: it may be on its way back.
    const awaySince = this.settings.now() - this.settings.agentReturnGraceMs
    await this.store.giveUpOnGoneAgents(awaySince >= this.startedAt ? awaySince : -1, EXPIRE_PER_STEP)
  }

  /** Whether this node did the cluster's maintenance at its last look (retention runs there too). */
  get maintaining(): boolean {
    return this.maintenance.maintaining
  }

  /** Asks the agents held here to stop the jobs whose cancellation was asked for; settles a stock agent's silence. */
  private async askCancels(): Promise<void> {
    const now = this.settings.now()
    const open = new Set<string>()
    for (const request of await this.store.read((db) => db.jobStates.cancelRequests())) {
      const held = this.heldOf(request.printerId)
      if (!held?.session.isConnected) continue
      const key = `${request.id}.${request.attempt}@${held.session.id}`
      open.add(key)
      if (
        !this.cancelsSent.has(key) &&
        held.session.send(cancelFrame(wireJobId(request.id, request.attempt), 'Cancelled by an operator.', now))
      )
        this.cancelsSent.add(key)
      if (!held.session.isPrinthubAgent && request.requestedAt + this.settings.cancelGraceMs <= now) {
        const job = await held.units.write(
          (db) => db.jobStates.cancelUnanswered(request.id, now - this.settings.cancelGraceMs),
          LOCKED_ROWS,
        )
        if (job) this.scheduleDispatch(job.printerId)
      }
    }
    for (const key of this.cancelsSent) if (!open.has(key)) this.cancelsSent.delete(key)
  }
}
