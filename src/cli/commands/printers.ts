import { DEFAULT_PROFILE_ID, defaultProfileId, findProfile, PROFILES } from '../../profiles/catalog.ts'
import { validate } from '../../protocol/rules.ts'
import { identifier } from '../../protocol/values.ts'
import { PAPER_WIDTHS, type PaperWidth } from '../../protocol/document.ts'
import { parseConnectionUri } from '../../transports/connection-uri.ts'
import { CliError, type Command, DATA_HELP, DATA_OPTION, JSON_HELP, JSON_OPTION, noPositionals, positional, printJson, printList, requireString, UsageError, withProject, withStore } from '../command.ts'

export const printersAddCommand: Command = {
  name: 'printers add',
  summary: 'add a printer record to a project',
  usage: '--project ID --id REMOTE_ID --connection URI [--profile NAME] [--width 58|80] [--name N] [--data DIR] [--json]',
  help: [
    '--project ID      the project that prints on it',
    '--id REMOTE_ID    the name applications use as printerId, e.g. kitchen (letters, digits, . _ : -)',
    '--connection URI  tcp://HOST[:9100], serial:///dev/ttyUSB0?baud=38400&flow=rtscts,',
    '                  usb:///dev/usb/lp0, usb://VID:PID[/SERIAL], file:///PATH or virtual',
    `--profile NAME    printer model: ${PROFILES.map((p) => p.id).join(', ')} (default: the generic one of the width, else ${DEFAULT_PROFILE_ID})`,
    "--width 58|80     paper width in mm (default: the profile's)",
    '--name N          a label for people',
    DATA_HELP,
    JSON_HELP,
  ],
  options: { project: { type: 'string' }, id: { type: 'string' }, connection: { type: 'string' }, profile: { type: 'string' }, width: { type: 'string' }, name: { type: 'string' }, ...DATA_OPTION, ...JSON_OPTION },
  run(args, io) {
    noPositionals(args)
    const remoteId = requireString(args, 'id')
    // The remote ID names the agent's printer on the wire, so it must be a protocol identifier.
    const idCheck = validate(identifier, remoteId)
    if (!idCheck.ok) throw new UsageError(`--id ${idCheck.issues[0]!.message}`)
    const connection = requireString(args, 'connection')
    const parsed = parseConnectionUri(connection)
    if (!parsed.ok) throw new UsageError(`--connection: ${parsed.message}`)
    const widthText = args.values.width as string | undefined
    const width = widthText === undefined ? undefined : (Number(widthText) as PaperWidth)
    if (width !== undefined && !PAPER_WIDTHS.includes(width)) throw new UsageError(`--width must be one of ${PAPER_WIDTHS.join(', ')}`)
    const profileId = (args.values.profile as string | undefined) ?? defaultProfileId(width)
    const profile = findProfile(profileId)
    if (!profile) throw new UsageError(`--profile must be one of ${PROFILES.map((p) => p.id).join(', ')} (see printhub profiles list)`)
    if (width !== undefined && !profile.paperWidths.includes(width)) {
      throw new UsageError(`--width must be one of ${profile.paperWidths.join(', ')} for profile ${profile.id}`)
    }
    const name = (args.values.name as string | undefined) ?? null
    const printer = withProject(args, io, (store, projectId) => {
      const builtin = store.agents.builtin()
      if (!builtin) throw new CliError('the built-in agent is not set up yet: run printhub init (or printhub serve) once first')
      const added = store.printers.add({ projectId, remoteId, name, connection, profile: profile.id, width: width ?? profile.defaultWidth, agentId: builtin.id })
      if (!added) throw new CliError(`project ${projectId} already has a printer "${remoteId}"`)
      return added
    })
    if (args.values.json) return printJson(io, printer)
    io.out(`Added printer ${printer.id} ("${printer.remoteId}", ${printer.connection}, ${printer.profile}, ${printer.width} mm).`)
  },
}

export const printersListCommand: Command = {
  name: 'printers list',
  summary: "list a project's printers",
  usage: '--project ID [--data DIR] [--json]',
  help: ['--project ID      the project', DATA_HELP, JSON_HELP],
  options: { project: { type: 'string' }, ...DATA_OPTION, ...JSON_OPTION },
  run(args, io) {
    noPositionals(args)
    const printers = withProject(args, io, (store, projectId) => store.printers.list(projectId))
    printList(io, args, printers, { ID: (p) => p.id, 'REMOTE ID': (p) => p.remoteId, CONNECTION: (p) => p.connection, PROFILE: (p) => p.profile, WIDTH: (p) => p.width, NAME: (p) => p.name }, 'No printers.')
  },
}

export const printersRemoveCommand: Command = {
  name: 'printers remove',
  summary: 'remove a printer record (its jobs keep their history)',
  usage: 'ID [--data DIR] [--json]',
  help: [DATA_HELP, JSON_HELP],
  options: { ...DATA_OPTION, ...JSON_OPTION },
  run(args, io) {
    const id = positional(args, 0, 'ID', 1)
    if (!withStore(args, io, (store) => store.printers.remove(id))) throw new CliError(`there is no printer ${id}`)
    if (args.values.json) return printJson(io, { id, removed: true })
    io.out(`Removed printer ${id}.`)
  },
}
