// A project's destinations as every edge makes, changes and deletes them (the public API, the
// admin API, the CLI): its printers named by record ID or name, each the project's, none twice, at
// least one and at most MAX_DESTINATION_PRINTERS; a name no printer or other destination of the
// project has (one namespace: applications post to either as printerId); the mode `failover` or
// `all` (fan-out). Each change written to the audit log with it. Outcomes are values; each edge
// says them.
import type { Destination, DestinationMode } from '../domain/records.ts'
import { DESTINATION_MODES, MAX_DESTINATION_PRINTERS } from '../protocol/destinations.ts'
import type { Issue } from '../protocol/rules.ts'
import type { Store } from '../store/store.ts'
import type { Actor } from './actor.ts'
import { recordChange } from './audit.ts'

export interface DestinationInput {
  mode: string
  /** Printer record IDs or names, in order of preference. */
  printers: readonly string[]
}

export type DestinationOutcome =
  | { kind: 'saved'; destination: Destination }
  | { kind: 'invalid'; issues: Issue[] }
  /** A printer or another destination of the project has the name. */
  | { kind: 'taken'; name: string }
  | { kind: 'unknown' }

/** A destination as the dashboard lists it: with its project's name and its printers' names, in order. */
export interface DestinationReport extends Destination {
  projectName: string
  printerNames: string[]
}

function checked(
  store: Store,
  projectId: string,
  input: DestinationInput,
): { mode: DestinationMode; printers: string[] } | { issues: Issue[] } {
  const mode = DESTINATION_MODES.find((known) => known === input.mode)
  if (!mode)
    return {
      issues: [
        { path: 'mode', message: `must be one of ${DESTINATION_MODES.map((known) => `"${known}"`).join(', ')}` },
      ],
    }
  const count = input.printers.length
  if (count < 1 || count > MAX_DESTINATION_PRINTERS)
    return {
      issues: [{ path: 'printers', message: `must have 1 to ${MAX_DESTINATION_PRINTERS} items (got ${count})` }],
    }
  const found = input.printers.map((name) => store.printers.resolve(projectId, name)?.id)
  const missing = found.flatMap((id, index) =>
    id ? [] : [{ path: `printers[${index}]`, message: `is no printer of this project ("${input.printers[index]}")` }],
  )
  if (missing.length > 0) return { issues: missing }
  if (new Set(found).size !== found.length)
    return { issues: [{ path: 'printers', message: 'names one printer twice' }] }
  return { mode, printers: found as string[] }
}

export class DestinationService {
  constructor(private readonly store: Store) {}

  /** A project's destinations, by name. */
  list(projectId: string): Destination[] {
    return this.store.destinations.list(projectId)
  }

  get(projectId: string, name: string): Destination | undefined {
    return this.store.destinations.get(projectId, name)
  }

  /** Every project's destinations, with the names of their project and printers. */
  reports(): DestinationReport[] {
    return this.store.projects.list().flatMap((project) =>
      this.store.destinations.list(project.id).map((destination) => ({
        ...destination,
        projectName: project.name,
        printerNames: destination.printers.map((id) => this.store.printers.get(id)?.remoteId ?? id),
      })),
    )
  }

  create(actor: Actor, projectId: string, name: string, input: DestinationInput): DestinationOutcome {
    if (!this.store.projects.get(projectId)) return { kind: 'unknown' }
    const valid = checked(this.store, projectId, input)
    if ('issues' in valid) return { kind: 'invalid', issues: valid.issues }
    if (this.store.printers.resolve(projectId, name) || this.store.destinations.get(projectId, name))
      return { kind: 'taken', name }
    return this.store.commits.write(() => {
      const destination = this.store.destinations.create(projectId, name, valid.mode, valid.printers)
      recordChange(this.store, { actor, action: 'destinations.create', target: destination.name })
      return { kind: 'saved', destination }
    })
  }

  /** Sets a destination's printers and mode. */
  set(actor: Actor, projectId: string, name: string, input: DestinationInput): DestinationOutcome {
    if (!this.store.destinations.get(projectId, name)) return { kind: 'unknown' }
    const valid = checked(this.store, projectId, input)
    if ('issues' in valid) return { kind: 'invalid', issues: valid.issues }
    return this.store.commits.write((): DestinationOutcome => {
      const destination = this.store.destinations.update(projectId, name, valid.mode, valid.printers)
      if (!destination) return { kind: 'unknown' }
      recordChange(this.store, { actor, action: 'destinations.set', target: destination.name })
      return { kind: 'saved', destination }
    })
  }

  /** Deletes a destination (jobs waiting at its printers stay there); false when the project has none of that name. */
  delete(actor: Actor, projectId: string, name: string): boolean {
    return this.store.commits.write(() => {
      if (!this.store.destinations.delete(projectId, name)) return false
      recordChange(this.store, { actor, action: 'destinations.delete', target: name })
      return true
    })
  }
}
