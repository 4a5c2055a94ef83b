// Work that may take long (rendering a document with images, drawing its receipt) done in a worker
// thread, one task at a time, within a time budget: the event loop that answers /health, takes
// jobs and talks to agents never waits for it. A task over its budget has its worker ended (the
// only way to stop a thread that computes) and a fresh one takes the next task.

/** What a worker answers for one task. */
export type TaskAnswer<O> =
  | { id: number; ok: true; output: O }
  | { id: number; ok: false; error: { name: string; message: string; [more: string]: unknown } }

/** The task went over its time budget; its worker was ended. */
export class OffThreadTimeout extends Error {
  override readonly name = 'OffThreadTimeout'
}

/** The worker failed in a way it did not answer for (it crashed, or could not start). */
export class OffThreadFailure extends Error {
  override readonly name = 'OffThreadFailure'
}

/** Tasks waiting at most; more are refused at once (the caller retries later). */
export const MAX_QUEUED_TASKS = 256

interface Task<I, O> {
  input: I
  transfer: Transferable[]
  resolve(output: O): void
  reject(error: Error): void
}

export class OffThread<I, O> {
  private worker: Worker | undefined
  private readonly queue: Task<I, O>[] = []
  private running: { id: number; task: Task<I, O>; timer: Timer } | undefined
  private nextId = 1

  /**
   * `script`: the worker's module (see render/worker.ts); `answerError` turns a worker's error
   * answer back into the caller's error (a RenderError, say).
   */
  constructor(
    private readonly script: URL,
    private readonly budgetMs: number,
    private readonly answerError: (error: { name: string; message: string; [more: string]: unknown }) => Error = (
      error,
    ) => Object.assign(new Error(error.message), { name: error.name }),
  ) {}

  run(input: I, transfer: Transferable[] = []): Promise<O> {
    if (this.queue.length >= MAX_QUEUED_TASKS)
      return Promise.reject(new OffThreadFailure(`${MAX_QUEUED_TASKS} tasks are waiting already`))
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, transfer, resolve, reject })
      this.next()
    })
  }

  /** Ends the worker; the task it was doing and those still waiting are refused. */
  close(): void {
    const waiting = this.queue.splice(0)
    const running = this.running
    if (running) this.settle(running.id, () => running.task.reject(new OffThreadFailure('stopped')), true)
    this.endWorker()
    for (const task of waiting) task.reject(new OffThreadFailure('stopped'))
  }

  private next(): void {
    if (this.running || this.queue.length === 0) return
    const task = this.queue.shift()!
    const id = this.nextId++
    const timer = setTimeout(
      () => this.settle(id, () => task.reject(new OffThreadTimeout(`took longer than ${this.budgetMs} ms`)), true),
      this.budgetMs,
    )
    this.running = { id, task, timer }
    try {
      this.ensureWorker().postMessage({ id, input: task.input }, task.transfer)
    } catch (error) {
      this.settle(id, () => task.reject(new OffThreadFailure((error as Error).message)), true)
    }
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker
    const worker = new Worker(this.script.href)
    // A worker waiting for tasks keeps no process alive (a CLI command ends when its work is done).
    ;(worker as unknown as { unref(): void }).unref()
    worker.onmessage = (event: MessageEvent<TaskAnswer<O>>) => {
      const answer = event.data
      const running = this.running
      if (!running || running.id !== answer.id) return
      this.settle(
        answer.id,
        () => (answer.ok ? running.task.resolve(answer.output) : running.task.reject(this.answerError(answer.error))),
        false,
      )
    }
    worker.onerror = (event: ErrorEvent) => {
      const running = this.running
      if (running) this.settle(running.id, () => running.task.reject(new OffThreadFailure(event.message)), true)
      else this.endWorker()
    }
    this.worker = worker
    return worker
  }

  private settle(id: number, finish: () => void, endWorker: boolean): void {
    if (this.running?.id !== id) return
    clearTimeout(this.running.timer)
    this.running = undefined
    if (endWorker) this.endWorker()
    finish()
    this.next()
  }

  private endWorker(): void {
    this.worker?.terminate()
    this.worker = undefined
  }
}
