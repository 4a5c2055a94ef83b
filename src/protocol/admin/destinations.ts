// Every project's destinations: listed with their printers (staff see them), made and deleted by
// technicians, as the public API and the CLI make them.
import { DESTINATION_MODES, MAX_DESTINATION_PRINTERS } from '../destinations.ts'
import { array, type Infer, object, oneOf, optional, string } from '../rules.ts'
import { identifier, shortString, timestamp } from '../values.ts'
import { type AdminOperation, json, MAX_LISTED, recordId } from './contract.ts'

const printer = string({ min: 1, max: 256 })
export const DESTINATION_BODY_BYTES = 16_384

/** A new destination: its printers in order of preference (IDs or names); its mode failover unless said. */
export const newDestinationRule = object({
  name: identifier,
  mode: optional(oneOf(DESTINATION_MODES)),
  printers: array(printer, { min: 1, max: MAX_DESTINATION_PRINTERS }),
})

const destinationFields = {
  id: recordId,
  projectId: recordId,
  name: identifier,
  mode: oneOf(DESTINATION_MODES),
  /** Printer record IDs, in order of preference. */
  printers: array(printer, { min: 1, max: MAX_DESTINATION_PRINTERS }),
  createdAt: timestamp,
  updatedAt: timestamp,
}
export const adminDestinationRule = object(destinationFields)
export type AdminDestination = Infer<typeof adminDestinationRule>

/** A destination as the list shows it: with its project's name and its printers' names, in order. */
export const destinationReportRule = object({
  ...destinationFields,
  projectName: shortString,
  printerNames: array(printer, { min: 1, max: MAX_DESTINATION_PRINTERS }),
})
export type DestinationReport = Infer<typeof destinationReportRule>

export const destinationOperations: AdminOperation[] = [
  {
    method: 'GET',
    path: '/destinations',
    operationId: 'listDestinations',
    summary: "Every project's destinations, with their printers in order",
    role: 'staff',
    answers: {
      200: json(object({ destinations: array(destinationReportRule, { max: MAX_LISTED }) }), 'The destinations'),
    },
    errors: [],
  },
  {
    method: 'POST',
    path: '/projects/:id/destinations',
    operationId: 'createDestination',
    summary: 'Make a destination of the project (mode failover unless said), as the public API does',
    role: 'technician',
    body: { rule: newDestinationRule, maxBytes: DESTINATION_BODY_BYTES },
    answers: { 201: json(object({ destination: adminDestinationRule }), 'The destination') },
    errors: [404, 409],
  },
  {
    method: 'DELETE',
    path: '/projects/:id/destinations/:name',
    operationId: 'deleteDestination',
    summary: 'Delete a destination of the project',
    role: 'technician',
    answers: { 204: { description: 'Deleted' } },
    errors: [404],
  },
]
