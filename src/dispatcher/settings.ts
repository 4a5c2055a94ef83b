// What the dispatcher (dispatcher.ts) is set up with: its waits and bounds, its clock, its log, and
// who hears that an agent changed.
import type { Backoff } from '../domain/backoff.ts'
import type { Logger } from '../platform/log.ts'

export interface DispatcherSettings {
  /** How long an agent has to confirm it stored a job before the attempt counts as failed. */
  ackTimeoutMs: number
  /** The wait before a failed job is tried again, now (a setting, read at each failure). */
  retry: () => Backoff
  /** How long a stock agent, which never answers a cancellation, has before it is taken as done. */
  cancelGraceMs: number
  /** How often expiry and operators' cancellations are looked for. */
  sweepMs: number
  /**
   * How long an agent that holds jobs may stay away (after the hub started, or since it was last
   * connected) before the hub gives up on those of them whose time ran out.
   */
  agentReturnGraceMs: number
  now: () => number
  /** Reports that make no sense (component dispatcher); jobs' state changes are the store's to log. */
  log: Logger
  /** Told when an agent connected, reported its printers, or went away (the dashboard's printer states). */
  agentChanged?: (agentId: string) => void
}
