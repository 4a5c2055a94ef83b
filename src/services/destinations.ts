// A project's destinations as every edge makes, changes and deletes them (the public API, the
// admin API, the CLI): its printers named by record ID or name, each the project's, none twice, at
// least one and at most MAX_DESTINATION_PRINTERS; a name no printer or other destination of the
// project has (one namespace: applications post to either as printerId); the mode `failover` or
// `all` (fan-out). Each change written to the audit log with it. Outcomes are values; each edge
// says them.
import type { Destination, DestinationMode } from '../domain/records.ts'
import { DESTINATION_MODES, MAX_DESTINATION_PRINTERS } from '../protocol/destinations.ts'
import type { Issue } from '../protocol/rules.ts'
import type { Db, UnitRunner } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'
import type { Actor } from './actor.ts'
import { recordedChange } from './audit.ts'

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

/** The destination's mode and printers' record IDs as given, or what is wrong with them. */
function* checked(
  db: Db,
  projectId: string,
  input: DestinationInput,
): Unit<{ mode: DestinationMode; printers: string[] } | { issues: Issue[] }> {
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
  const found: (string | undefined)[] = []
  for (const name of input.printers) found.push((yield* db.printers.resolve(projectId, name))?.id)
  const missing = found.flatMap((id, index) =>
    id ? [] : [{ path: `printers[${index}]`, message: `is no printer of this project ("${input.printers[index]}")` }],
  )
  if (missing.length > 0) return { issues: missing }
  if (new Set(found).size !== found.length)
    return { issues: [{ path: 'printers', message: 'names one printer twice' }] }
  return { mode, printers: found as string[] }
}

export class DestinationService {
  constructor(private readonly units: UnitRunner) {}

  /** A project's destinations, by name. */
  list(projectId: string): Promise<Destination[]> {
    return this.units.read((db) => db.destinations.list(projectId))
  }

  get(projectId: string, name: string): Promise<Destination | undefined> {
    return this.units.read((db) => db.destinations.get(projectId, name))
  }

  /** Every project's destinations, with the names of their project and printers. */
  reports(): Promise<DestinationReport[]> {
    return this.units.read(function* (db): Unit<DestinationReport[]> {
      const reports: DestinationReport[] = []
      for (const project of yield* db.projects.list())
        for (const destination of yield* db.destinations.list(project.id)) {
          const printerNames: string[] = []
          for (const id of destination.printers) printerNames.push((yield* db.printers.get(id))?.remoteId ?? id)
          reports.push({ ...destination, projectName: project.name, printerNames })
        }
      return reports
    })
  }

  /** A new destination of the project; its name may be no printer's or other destination's of the project. */
  create(actor: Actor, projectId: string, name: string, input: DestinationInput): Promise<DestinationOutcome> {
    return this.units.write(function* (db): Unit<DestinationOutcome> {
      if (!(yield* db.projects.get(projectId))) return { kind: 'unknown' }
      const valid = yield* checked(db, projectId, input)
      if ('issues' in valid) return { kind: 'invalid', issues: valid.issues }
      if ((yield* db.printers.resolve(projectId, name)) || (yield* db.destinations.get(projectId, name)))
        return { kind: 'taken', name }
      const destination = yield* db.destinations.create(projectId, name, valid.mode, valid.printers)
      yield* recordedChange(db, { actor, action: 'destinations.create', target: destination.name })
      return { kind: 'saved', destination }
    })
  }

  /** Sets a destination's printers and mode. */
  set(actor: Actor, projectId: string, name: string, input: DestinationInput): Promise<DestinationOutcome> {
    return this.units.write(function* (db): Unit<DestinationOutcome> {
      if (!(yield* db.destinations.get(projectId, name))) return { kind: 'unknown' }
      const valid = yield* checked(db, projectId, input)
      if ('issues' in valid) return { kind: 'invalid', issues: valid.issues }
      const destination = yield* db.destinations.update(projectId, name, valid.mode, valid.printers)
      if (!destination) return { kind: 'unknown' }
      yield* recordedChange(db, { actor, action: 'destinations.set', target: destination.name })
      return { kind: 'saved', destination }
    })
  }

  /** Deletes a destination (jobs waiting at its printers stay there); false when the project has none of that name. */
  delete(actor: Actor, projectId: string, name: string): Promise<boolean> {
    return this.units.write(function* (db): Unit<boolean> {
      if (!(yield* db.destinations.delete(projectId, name))) return false
      yield* recordedChange(db, { actor, action: 'destinations.delete', target: name })
      return true
    })
  }
}
