// One job rendered ahead for each printer. While a printer's job is handed over (the printer reached
// and asked its status, the intent flushed, the bytes written: waits on the printer and the disk),
// the job queued after it is rendered, so that its turn starts with its bytes ready instead of
// rendering them then. The bytes serve only that job, rendered the same way (the printer's model,
// paper width and link): a job cancelled meanwhile, or a printer changed, is rendered anew at its
// turn. A render that failed ahead fails the job at its turn, as if it had been rendered then.
// Nothing is printed sooner or in another order: only the render moves. Measured in
// docs/performance.md.
import type { RenderRequest } from '../render/request.ts'

export type Render = (request: RenderRequest) => Promise<Uint8Array>

/**
 * A payload stored as text longer than this is not read to render ahead: a light document (the
 * only kind rendered ahead) is nearly always far shorter (the rare one that is not renders at its
 * turn), and parsing a long one only to find it heavy would cost more than rendering ahead saves.
 */
export const AHEAD_PAYLOAD_CHARS = 65_536

/**
 * The job to render ahead of a printer's job `afterSeq` (the one queued right after it), and how; none when there is
 * none to render now.
 */
export type NextJob = (printerId: string, afterSeq: number) => { jobId: string; request: RenderRequest } | undefined

interface Ahead {
  jobId: string
  request: RenderRequest
  bytes: Promise<Uint8Array>
}

export class RenderAhead {
  /** Each printer's next job, rendering or rendered: one a printer at most. */
  private readonly ahead = new Map<string, Ahead>()
  /** The job each printer is handing over now, by number. */
  private readonly current = new Map<string, number>()

  constructor(
    private readonly render: Render,
    private readonly nextJob: NextJob,
  ) {}

  /** The job's bytes: those rendered ahead for it the same way, or rendered now. */
  bytes(printerId: string, jobId: string, request: RenderRequest): Promise<Uint8Array> {
    const ahead = this.ahead.get(printerId)
    this.ahead.delete(printerId)
    return ahead && ahead.jobId === jobId && sameRendering(ahead.request, request) ? ahead.bytes : this.render(request)
  }

  /** A printer's job `seq` has its bytes and is being handed over: the job after it renders now. */
  handingOver(printerId: string, seq: number): void {
    this.current.set(printerId, seq)
    this.renderNext(printerId)
  }

  /** The printer's job ended: none is handed over until its next one's turn. */
  handedOver(printerId: string): void {
    this.current.delete(printerId)
  }

  /** A job came for a printer: rendered now if it is the one after the job being handed over and none is yet. */
  arrived(printerId: string): void {
    if (!this.ahead.has(printerId)) this.renderNext(printerId)
  }

  /** Lets go of what was rendered ahead for printers no longer served. */
  keepOnly(printerIds: ReadonlySet<string>): void {
    for (const printerId of this.ahead.keys()) if (!printerIds.has(printerId)) this.ahead.delete(printerId)
  }

  private renderNext(printerId: string): void {
    const seq = this.current.get(printerId)
    const next = seq === undefined ? undefined : this.nextJob(printerId, seq)
    if (!next || this.ahead.get(printerId)?.jobId === next.jobId) return
    // Once the work of this turn is done: the printer's current job goes on first.
    const bytes = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.render(next.request))
    // A failure is the job's, told at its turn (bytes()); until then nobody waits for it.
    bytes.catch(() => undefined)
    this.ahead.set(printerId, { jobId: next.jobId, request: next.request, bytes })
  }
}

function sameRendering(a: RenderRequest, b: RenderRequest): boolean {
  return a.profile === b.profile && a.width === b.width && a.link === b.link
}
