// Each delivery attempt of a job has its own wire identity, used as both the OpenPrinter jobId and
// idempotencyKey: agents treat a failed job ID and its key as final, so a retry needs new ones.

export function wireJobId(jobId: string, attempt: number): string {
  return `${jobId}.a${attempt}`
}

export function parseWireJobId(wireId: string): { jobId: string; attempt: number } | undefined {
  const match = /^(job_[0-9a-f]{32})\.a([1-9]\d?)$/.exec(wireId)
  return match ? { jobId: match[1]!, attempt: Number(match[2]) } : undefined
}

/** The message that carries an attempt: named by its wire ID, so a sending again carries the same one. */
export function printJobMessageId(wireId: string): string {
  return `m.${wireId}`
}
