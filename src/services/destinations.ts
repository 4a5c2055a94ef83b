// A project's destinations as every edge makes and changes them (the public API, the CLI): its
// printers named by record ID or name, each the project's, none twice; a name no printer or other
// destination of the project has (one namespace: applications post to either as printerId); the
// mode `failover` or `all` (fan-out). Outcomes are values; each edge says them.
import type { Issue } from '../protocol/rules.ts'
import type { Destination, DestinationMode } from '../store/destinations.ts'
import { DESTINATION_MODES } from '../protocol/destinations.ts'
import type { Store } from '../store/store.ts'

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
  const found = input.printers.map((name) => store.printers.resolve(projectId, name)?.id)
  const missing = found.flatMap((id, index) =>
    id ? [] : [{ path: `printers[${index}]`, message: `is no printer of this project ("${input.printers[index]}")` }],
  )
  if (missing.length > 0) return { issues: missing }
  if (new Set(found).size !== found.length)
    return { issues: [{ path: 'printers', message: 'names one printer twice' }] }
  return { mode, printers: found as string[] }
}

export function createDestination(
  store: Store,
  projectId: string,
  name: string,
  input: DestinationInput,
): DestinationOutcome {
  if (!store.projects.get(projectId)) return { kind: 'unknown' }
  const valid = checked(store, projectId, input)
  if ('issues' in valid) return { kind: 'invalid', issues: valid.issues }
  if (store.printers.resolve(projectId, name) || store.destinations.get(projectId, name)) return { kind: 'taken', name }
  return {
    kind: 'saved',
    destination: store.commits.write(() => store.destinations.create(projectId, name, valid.mode, valid.printers)),
  }
}

export function changeDestination(
  store: Store,
  projectId: string,
  name: string,
  input: DestinationInput,
): DestinationOutcome {
  if (!store.destinations.get(projectId, name)) return { kind: 'unknown' }
  const valid = checked(store, projectId, input)
  if ('issues' in valid) return { kind: 'invalid', issues: valid.issues }
  const destination = store.commits.write(() => store.destinations.update(projectId, name, valid.mode, valid.printers))
  return destination ? { kind: 'saved', destination } : { kind: 'unknown' }
}
