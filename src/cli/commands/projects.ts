import {
  type Command,
  DATA_HELP,
  STORE_HELP,
  DATA_OPTION,
  STORE_OPTION,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  positional,
  printJson,
  printList,
  THE_MACHINE,
  UsageError,
  withServices,
} from '../command.ts'

export const projectsCreateCommand: Command = {
  name: 'projects create',
  summary: 'create a project',
  usage: 'NAME [--data DIR | --store URL] [--json]',
  help: [DATA_HELP, STORE_HELP, JSON_HELP],
  options: { ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    const name = positional(args, 0, 'NAME', 1)
    const made = await withServices(args, io, (services) => services.projects.create(THE_MACHINE, name))
    if (made.kind === 'invalid') throw new UsageError(`NAME ${made.message}`)
    const project = made.project
    if (args.values.json) return printJson(io, project)
    io.out(
      `Created project ${project.id} (${project.name}). Create a key for it: ` +
        `printhub keys create --project ${project.id}`,
    )
  },
}

export const projectsListCommand: Command = {
  name: 'projects list',
  summary: 'list projects',
  usage: '[--data DIR | --store URL] [--json]',
  help: [DATA_HELP, STORE_HELP, JSON_HELP],
  options: { ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const projects = await withServices(args, io, (services) => services.projects.list())
    printList(io, args, projects, {
      columns: { ID: (p) => p.id, NAME: (p) => p.name, 'OPEN JOBS': (p) => p.openJobs, CREATED: (p) => p.createdAt },
      empty: 'No projects.',
    })
  },
}
