// A printer that confirms a job at once (it printed while the hub was still writing down that it
// was sending it, as a network printer with a short ticket does) has its job recorded once, as
// printed: the PRINTING and the COMPLETED reports go together. Only a job still unconfirmed after
// PRINTING_AFTER_MS is recorded PRINTING first. So the moment the printer's answer comes finds the
// hub's event loop free to read it, instead of busy recording PRINTING: measured with the crash
// bench's load, most of the time between the job's first byte and its printed mark (the window in
// which a crash leaves a job uncertain) was the answer waiting to be read. One ledger record and
// one state write fewer a job, too. A remote hub still hears both reports and shows PRINTING
// between them; the hub in this process hears one, and the job goes DELIVERED → COMPLETED
// (job-reports.ts's completionReports).

/** How long a job's printer has to confirm it before the job is recorded PRINTING. */
export const PRINTING_AFTER_MS = 10

/**
 * The printer's word on the job if it comes within PRINTING_AFTER_MS; 'stopped' if the agent stops first, 'printing' if
 * neither came.
 */
export async function promptly<T>(printed: Promise<T>, stopping: Promise<void>): Promise<T | 'printing' | 'stopped'> {
  let timer: Timer | undefined
  try {
    return await Promise.race([
      printed,
      stopping.then(() => 'stopped' as const),
      new Promise<'printing'>((resolve) => (timer = setTimeout(() => resolve('printing'), PRINTING_AFTER_MS))),
    ])
  } finally {
    clearTimeout(timer)
  }
}
