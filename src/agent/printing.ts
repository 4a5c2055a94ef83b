// Printing a job the agent stored (agent.ts): rendered (ahead of its turn when it is light,
// render-ahead.ts), handed to its printer in the order that keeps a crash's uncertainty small
// (hand-over.ts), its printer's word awaited, and its end recorded in the ledger with the reports
// that tell it (job-reports.ts), sent at once. A cancellation stops a job not yet printing.
import type { PrintDocument } from '../protocol/document.ts'
import type { Failure } from '../protocol/failures.ts'
import { RenderError } from '../render/errors.ts'
import { isLight } from '../render/off-thread.ts'
import type { RenderRequest } from '../render/request.ts'
import type { Transports } from '../transports/submit.ts'
import type { SubmitOutcome } from '../transports/submission.ts'
import type { ServedPrinter } from './catalog.ts'
import { handOver, type IntentRecorder } from './hand-over.ts'
import { cancelledReport, completionReports, failedReport, submittedReport } from './job-reports.ts'
import type { AgentLedger } from './agent-ledger.ts'
import type { LedgerJob } from './ledger-rows.ts'
import type { ReportedLedgerEvent } from './ledger-transitions.ts'
import type { PrinterQueues } from './printer-queues.ts'
import { promptly } from './prompt-confirmation.ts'
import type { RenderAhead } from './render-ahead.ts'
import type { ReportSender } from './report-sender.ts'
import type { StatusWatch } from './status-watch.ts'

/** What printing works with: the agent's ledger, printers, queues, rendering and reports. */
export interface PrintingOptions {
  ledger: AgentLedger
  transports: Transports
  status: StatusWatch
  rendering: RenderAhead
  queues: PrinterQueues
  reports: ReportSender
  /** The agent's printer of this ID, as its catalog was last read. */
  printer: (printerId: string) => ServedPrinter | undefined
  /** Whether the hub reads the agent's frames in this process (and checks them there). */
  hubInProcess: () => boolean
  stopped: () => boolean
  /** Settles when the agent stops: nobody waits longer for a printer's confirmation. */
  stopping: Promise<void>
  /** Where the intent to print is recorded besides the ledger (hand-over.ts). */
  intents?: IntentRecorder | undefined
}

export class Printing {
  private readonly submitting = new Map<string, AbortController>()
  private readonly ledger: AgentLedger
  private readonly transports: Transports
  private readonly status: StatusWatch
  private readonly rendering: RenderAhead
  private readonly queues: PrinterQueues
  private readonly reports: ReportSender

  constructor(private readonly options: PrintingOptions) {
    this.ledger = options.ledger
    this.transports = options.transports
    this.status = options.status
    this.rendering = options.rendering
    this.queues = options.queues
    this.reports = options.reports
  }

  private get stopped(): boolean {
    return this.options.stopped()
  }

  private get hubInProcess(): boolean {
    return this.options.hubInProcess()
  }

  /** Stops the writes still going (the agent stops, and its grace ran out). */
  abortAll(): void {
    for (const controller of this.submitting.values()) controller.abort()
  }

  /** A job the hub asked to stop: cancelled if it has not started; its write stopped if it still can be. */
  cancel(jobId: string): void {
    const job = this.ledger.job(jobId)
    if (!job) return
    // Not yet printing: cancelled, and a printer being readied for it (reached, or offered it) is let go.
    if (job.state === 'received') this.finish(job, 'cancel', [cancelledReport(job, this.hubInProcess)])
    // A job being written stops if the write can still stop; otherwise its submission stands.
    if (job.state === 'received' || job.state === 'submitting') this.submitting.get(jobId)?.abort()
  }

  async print(job: LedgerJob): Promise<void> {
    const printer = this.options.printer(job.printerId)
    if (!printer)
      return this.fail(job, {
        code: 'printer.not_found',
        message: `This agent has no printer ${job.printerId}.`,
        retryable: true,
      })
    const parsed = printer.parsed
    if (!parsed.ok)
      return this.fail(job, {
        code: 'printer.invalid_connection',
        message: `The printer's connection is invalid: ${parsed.message}`,
        retryable: false,
      })
    const connection = parsed.connection
    const rendering = renderRequest(printer, connection.kind, job.payload!.document as PrintDocument)
    // Registered before the job is rendered: a cancellation meanwhile stops it before the printer is
    // reached (one that polls is never offered it), and so does stopping the agent.
    const controller = new AbortController()
    this.submitting.set(job.jobId, controller)
    let submission: SubmitOutcome | undefined
    try {
      let bytes: Uint8Array
      try {
        // A heavy document renders in the render worker: the hub's event loop never waits for it.
        bytes = await this.rendering.bytes(printer.id, job.jobId, rendering)
      } catch (error) {
        if (error instanceof RenderError)
          return this.fail(job, { code: error.code, message: error.message, retryable: error.retryable })
        throw error
      }
      // The next job renders while this one is handed over (render-ahead.ts).
      this.rendering.handingOver(printer.id, job.seq)
      // The idle watch's ask of this printer, if one is on its way, ends first: one connection at a time.
      await this.status.asked(printer.id)
      const meanwhile = () => this.queues.held.take(printer.id)
      submission = await handOver({
        job,
        bytes,
        connection,
        model: printer,
        ledger: this.ledger,
        transports: this.transports,
        signal: controller.signal,
        stopping: () => this.stopped,
        othersAtWork: () => this.queues.size > 1,
        meanwhile,
        intents: this.options.intents,
      })
    } finally {
      this.submitting.delete(job.jobId)
    }
    if (!submission) return
    if (!submission.ok) {
      if ('cancelled' in submission) return this.finish(job, 'cancel', [cancelledReport(job, this.hubInProcess)])
      this.status.learn(printer.id, submission.failure.code)
      return this.fail(job, submission.failure)
    }
    this.status.learn(printer.id, undefined)
    // A link that cannot tell whether the printer printed: every byte taken is all there is to know.
    if (!submission.printed) return this.printed(job, false, true)
    const submittedAt = new Date().toISOString()
    // PRINTING until the printer says it printed everything, unless it says so at once (prompt-confirmation.ts).
    let printed = await promptly(submission.printed, this.options.stopping)
    const printing = printed === 'printing' || printed === 'stopped' || this.stopped || !printed.ok
    if (printing) this.finish(job, 'submit', [submittedReport(job, this.hubInProcess, submittedAt)])
    if (printed === 'printing')
      printed = await Promise.race([submission.printed, this.options.stopping.then(() => 'stopped' as const)])
    // Stopping leaves the job `submitted`, for the next start's recovery.
    if (printed === 'stopped' || this.stopped) return
    if (!printed.ok) {
      this.status.learn(printer.id, printed.failure.code)
      return this.fail(job, printed.failure)
    }
    this.printed(job, printing, true, submittedAt)
  }

  /**
   * Printed: marked at once, so a crash from here leaves the job completed, not uncertain
   * (hand-over-marks.ts), then recorded: while the printer's next job's intent is flushed when one
   * waits (held-records.ts), at once otherwise.
   */
  printed(job: LedgerJob, reportedSubmitted: boolean, next = false, submittedAt?: string): void {
    this.ledger.printed(job)
    // Reported with the moments they happened, though the record may be made later (held-records.ts).
    const completedAt = new Date().toISOString()
    const completion = { reportedSubmitted, completedAt, submittedAt: submittedAt ?? completedAt }
    const record = () => this.finish(job, 'complete', completionReports(job, this.hubInProcess, completion))
    if (next && !this.stopped && this.queues.size === 1 && this.ledger.nextReceived(job.printerId))
      this.queues.held.hold(job.printerId, job.seq, record)
    else record()
  }

  /**
   * The job after `afterSeq`, to render ahead: a light one only (the render worker is every printer's; another's job
   * must not wait for it).
   */
  nextToRender(printerId: string, afterSeq: number): { jobId: string; request: RenderRequest } | undefined {
    const printer = this.options.printer(printerId)
    if (!printer?.parsed.ok) return undefined
    const next = this.ledger.nextAfter(printerId, afterSeq)
    const document = next?.payload?.document as PrintDocument | undefined
    return next && document && isLight(document)
      ? { jobId: next.jobId, request: renderRequest(printer, printer.parsed.connection.kind, document) }
      : undefined
  }

  fail(job: LedgerJob, reason: Failure): void {
    this.finish(job, 'fail', [failedReport(job, reason, this.hubInProcess)])
  }

  private finish(job: LedgerJob, event: ReportedLedgerEvent, reports: string[]): void {
    // A printer's jobs are told in order: the one before this, printed, is recorded first.
    this.queues.held.make(job.printerId, job.seq)
    if (this.ledger.finish(job.seq, event, reports)) void this.reports.flush()
  }
}

/** How a document is rendered for a printer: its model, paper width and link. */
const renderRequest = (
  printer: ServedPrinter,
  link: RenderRequest['link'],
  document: PrintDocument,
): RenderRequest => ({ document, profile: printer.profile, width: printer.width, link })
