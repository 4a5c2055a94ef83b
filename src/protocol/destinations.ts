// A project's destinations (`/v1/projects/:projectId/destinations`): a name applications post jobs
// to instead of a printer, with its printers in order of preference and a mode. `failover`: the
// first printer that can print takes the job, and jobs waiting at one that cannot move on.
import { array, object, oneOf, type Rule, string } from './rules.ts'
import { identifier, timestamp } from './values.ts'

export const DESTINATION_MODES = ['failover', 'all'] as const
/** Printers one destination may have. */
export const MAX_DESTINATION_PRINTERS = 16

const printers = array(string({ min: 1, max: 256 }), { min: 1, max: MAX_DESTINATION_PRINTERS, unique: true })

/** POST: a new destination; its name is a printer ID's kind of name (it is posted as `printerId`). */
export const createDestinationRule = object({ name: identifier, mode: oneOf(DESTINATION_MODES), printers })
/** PUT /:name: its mode and printers. */
export const updateDestinationRule = object({ mode: oneOf(DESTINATION_MODES), printers })

export interface DestinationView {
  name: string
  mode: (typeof DESTINATION_MODES)[number]
  /** Printer record IDs, in order of preference (what jobs carry as printerId). */
  printers: string[]
  createdAt: string
  updatedAt: string
}

const destinationRule: Rule<DestinationView> = object({
  name: identifier,
  mode: oneOf(DESTINATION_MODES),
  printers: array(string({ min: 1, max: 256 }), { min: 1, max: MAX_DESTINATION_PRINTERS }),
  createdAt: timestamp,
  updatedAt: timestamp,
})
export const destinationResponseRule = object({ destination: destinationRule })
export const destinationsResponseRule = object({ destinations: array(destinationRule, { max: 10_000 }) })
