// The receipt a job makes on its printer, as a PNG for the dashboard: rendered for the printer's
// model, then read back as the printer would print it. Drawn in a worker thread within a time
// budget (a long receipt with images takes a while, and the hub goes on answering meanwhile),
// and kept in a cache bounded in bytes, so looking at the same receipt again costs nothing. The
// same worker draws the picture a CloudPRNT printer that fetches `image/png` prints.
import { BoundedMap } from '../platform/bounded-map.ts'
import { OffThread } from '../platform/off-thread.ts'
import type { PaperWidth, PrintDocument } from '../protocol/document.ts'
import type { PrinterRecord } from '../domain/records.ts'
import { parseConnectionUri } from '../domain/connection-uri.ts'
import type { ReceiptTask } from './receipt-thread.ts'

/** Receipt images kept, in bytes of PNG at most; the least recently shown goes first. */
export const RECEIPT_CACHE_BYTES = 16 * 1024 * 1024
/** The longest one receipt may take to draw. */
export const RECEIPT_BUDGET_MS = 20_000

function workerScript(): URL {
  return Bun.main.startsWith('/$bunfs/')
    ? new URL('file:///$bunfs/root/workers/receipt-thread.ts')
    : new URL('./receipt-thread.ts', import.meta.url)
}

export class ReceiptImages {
  private readonly kept: BoundedMap<string, Uint8Array>
  private readonly drawing = new Map<string, Promise<Uint8Array>>()
  private worker: OffThread<ReceiptTask, Uint8Array> | undefined

  constructor(
    budgetBytes = RECEIPT_CACHE_BYTES,
    private readonly budgetMs = RECEIPT_BUDGET_MS,
  ) {
    this.kept = new BoundedMap(Number.MAX_SAFE_INTEGER, budgetBytes)
  }

  /** The PNG of job `jobId`'s receipt on `printer`; rejects when it cannot be drawn (a message for people). */
  png(
    jobId: string,
    document: PrintDocument,
    printer: Pick<PrinterRecord, 'profile' | 'width' | 'connection'>,
  ): Promise<Uint8Array> {
    const parsed = parseConnectionUri(printer.connection)
    const link = parsed.ok ? parsed.connection.kind : undefined
    const key = `${jobId} ${printer.profile} ${printer.width} ${link}`
    // Most recently shown last.
    const kept = this.kept.touch(key)
    if (kept) return Promise.resolve(kept)
    const pending = this.drawing.get(key)
    if (pending) return pending
    this.worker ??= new OffThread(workerScript(), this.budgetMs)
    const drawn = this.worker.run({ document, profile: printer.profile, width: printer.width, link }).then(
      (png) => {
        this.drawing.delete(key)
        this.kept.set(key, png, png.length)
        return png
      },
      (error: Error) => {
        this.drawing.delete(key)
        throw error
      },
    )
    this.drawing.set(key, drawn)
    return drawn
  }

  /**
   * The PNG of a job's bytes, already rendered for the printer's model (`profile`, `width`), as
   * that printer would print them: for a CloudPRNT printer that fetches pictures. Not kept here
   * (the job's offer keeps it while the printer may fetch it again); rejects when it cannot be
   * drawn within the time budget.
   */
  printed(bytes: Uint8Array, model: { profile: string; width: PaperWidth }): Promise<Uint8Array> {
    this.worker ??= new OffThread(workerScript(), this.budgetMs)
    return this.worker.run({ bytes, profile: model.profile, width: model.width })
  }

  /** Bytes of PNG kept now. */
  get keptBytes(): number {
    return this.kept.bytes
  }

  close(): void {
    this.worker?.close()
  }
}
