// `printhub destinations …`: a project's destinations on the machine, as the API makes them
// (services/destinations.ts): names jobs are posted to, their printers in order, failover or fan-out.
import type { Destination } from '../../domain/records.ts'
import type { DestinationInput, DestinationOutcome } from '../../services/destinations.ts'
import type { HubServices } from '../../services/hub-services.ts'
import {
  CliError,
  type Command,
  DATA_HELP,
  STORE_HELP,
  DATA_OPTION,
  STORE_OPTION,
  JSON_HELP,
  JSON_OPTION,
  positional,
  printJson,
  printList,
  THE_MACHINE,
  UsageError,
  withProject,
} from '../command.ts'

function said(outcome: DestinationOutcome, name: string): Destination {
  if (outcome.kind === 'invalid')
    throw new CliError(
      `the destination is not valid:\n${outcome.issues.map((issue) => `  ${issue.path}: ${issue.message}`).join('\n')}`,
    )
  if (outcome.kind === 'taken') throw new CliError(`the project already has a printer or destination named ${name}`)
  if (outcome.kind === 'unknown')
    throw new CliError(`the project has no destination ${name} (see printhub destinations list)`)
  return outcome.destination
}

const printersOf = (args: { values: Record<string, unknown> }): string[] => {
  const printers = args.values.printer as string[] | undefined
  if (!printers || printers.length === 0)
    throw new UsageError('name its printers with --printer ID, in order of preference (repeat it)')
  return printers
}

const OPTIONS = {
  project: { type: 'string' },
  printer: { type: 'string', multiple: true },
  mode: { type: 'string' },
  ...DATA_OPTION,
  ...STORE_OPTION,
  ...JSON_OPTION,
} as const
const HELP = [
  '--project ID      the project',
  '--printer ID      a printer of the project (record ID or name); repeat, in order of preference',
  '--mode failover   the first printer that can print takes each job (default)',
  '--mode all        every printer prints each job: one job per printer, summarised by the job posted',
  DATA_HELP,
  STORE_HELP,
  JSON_HELP,
]

function shown(io: Parameters<Command['run']>[1], json: unknown, destination: Destination, verb: string): void {
  if (json) return printJson(io, destination)
  io.out(`${verb} destination ${destination.name} (${destination.mode}): ${destination.printers.join(', ')}.`)
}

/** How `destinations create` and `destinations set` save what they were given. */
type Save = (
  services: HubServices,
  projectId: string,
  name: string,
  input: DestinationInput,
) => Promise<DestinationOutcome>

/** `destinations create` and `destinations set`: the same input, made or changed. */
function saveCommand(name: string, summary: string, save: Save, verb: string): Command {
  return {
    name,
    summary,
    usage: 'NAME --project ID --printer ID... [--mode failover|all] [--data DIR | --store URL] [--json]',
    help: HELP,
    options: OPTIONS,
    async run(args, io) {
      const destinationName = positional(args, 0, 'NAME', 1)
      const printers = printersOf(args)
      const mode = (args.values.mode as string | undefined) ?? 'failover'
      const destination = said(
        await withProject(args, io, (services, projectId) =>
          save(services, projectId, destinationName, { mode, printers }),
        ),
        destinationName,
      )
      shown(io, args.values.json, destination, verb)
    },
  }
}

export const destinationsCreateCommand = saveCommand(
  'destinations create',
  'make a destination: a name jobs are posted to, its printers in order, failover between them or all of them',
  (services, projectId, name, input) => services.destinations.create(THE_MACHINE, projectId, name, input),
  'Made',
)
export const destinationsSetCommand = saveCommand(
  'destinations set',
  "change a destination's printers (and mode)",
  (services, projectId, name, input) => services.destinations.set(THE_MACHINE, projectId, name, input),
  'Changed',
)

export const destinationsListCommand: Command = {
  name: 'destinations list',
  summary: "list a project's destinations",
  usage: '--project ID [--data DIR | --store URL] [--json]',
  help: ['--project ID      the project', DATA_HELP, STORE_HELP, JSON_HELP],
  options: { project: { type: 'string' }, ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    const destinations = await withProject(args, io, (services, projectId) => services.destinations.list(projectId))
    printList(io, args, destinations, {
      columns: {
        NAME: (d) => d.name,
        MODE: (d) => d.mode,
        PRINTERS: (d) => d.printers.join(','),
        CREATED: (d) => d.createdAt,
      },
      empty: 'No destinations.',
    })
  },
}

export const destinationsDeleteCommand: Command = {
  name: 'destinations delete',
  summary: 'delete a destination (jobs waiting at its printers stay there)',
  usage: 'NAME --project ID [--data DIR | --store URL] [--json]',
  help: ['--project ID      the project', DATA_HELP, STORE_HELP, JSON_HELP],
  options: { project: { type: 'string' }, ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    const name = positional(args, 0, 'NAME', 1)
    if (
      !(await withProject(args, io, (services, projectId) =>
        services.destinations.delete(THE_MACHINE, projectId, name),
      ))
    )
      throw new CliError(`the project has no destination ${name}`)
    if (args.values.json) return printJson(io, { name, deleted: true })
    io.out(`Deleted destination ${name}.`)
  },
}
