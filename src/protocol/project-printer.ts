// A project's printer as applications see it (`GET /v1/projects/:projectId/printers`): what it is
// called, whether it can print now, and how many jobs wait for it.
import { MAX_PRINTER_ID_LENGTH } from './limits.ts'
import { array, integer, nullable, object, oneOf, type Rule, string } from './rules.ts'
import { timestamp } from './values.ts'

/** What a printer can do now, in one word: ready, busy printing, or why it cannot print. */
export const PROJECT_PRINTER_STATES = [
  'ready',
  'busy',
  'offline',
  'paper_out',
  'paper_near_end',
  'cover_open',
  'error',
  'unknown',
] as const
export type ProjectPrinterState = (typeof PROJECT_PRINTER_STATES)[number]

export interface ProjectPrinter {
  /** The printer record's ID: what jobs carry as `printerId`. */
  id: string
  /** The project-local name an application may post as `printerId` (e.g. `kitchen`). */
  name: string
  /** The printer model's profile (e.g. `epson-tm-t20iii`). */
  model: string
  state: ProjectPrinterState
  /** Since when the printer's condition is what it is; null before anything was heard of it. */
  stateSince: string | null
  /** When the hub last heard from the printer's agent: now while it is connected. */
  lastSeenAt: string | null
  /** Jobs waiting for the printer, not yet with its agent (PENDING and DISPATCHING). */
  queueDepth: number
  /** The agent that drives the printer. */
  agentId: string
}

const id = string({ min: 1, max: MAX_PRINTER_ID_LENGTH })

export const projectPrinterRule: Rule<ProjectPrinter> = object({
  id,
  name: id,
  model: id,
  state: oneOf(PROJECT_PRINTER_STATES),
  stateSince: nullable(timestamp),
  lastSeenAt: nullable(timestamp),
  queueDepth: integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  agentId: id,
})

export const projectPrintersResponseRule: Rule<{ printers: ProjectPrinter[] }> = object({
  printers: array(projectPrinterRule, { max: 100_000 }),
})
export const projectPrinterResponseRule: Rule<{ printer: ProjectPrinter }> = object({ printer: projectPrinterRule })
