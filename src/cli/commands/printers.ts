import { DEFAULT_PROFILE_ID, PROFILES } from '../../profiles/catalog.ts'
import {
  checkPrinterSettings,
  POLLING_MODELS,
  type PrinterSettingsFields,
  type SettingProblem,
} from '../../services/printer-settings.ts'
import type { PrinterRecord } from '../../domain/records.ts'
import type { AddPrinterOutcome } from '../../services/printers.ts'
import { Ledger } from '../../agent/ledger.ts'
import { DEFAULT_AGENT_DATA_DIR } from '../../agent/remote.ts'
import { resolveConfig } from '../../hub/config.ts'
import { confinementOf } from '../../transports/confine.ts'
import {
  CliError,
  type Command,
  DATA_HELP,
  STORE_HELP,
  dataDirOf,
  DATA_OPTION,
  STORE_OPTION,
  type Io,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  type ParsedArgs,
  positional,
  printJson,
  printList,
  requireString,
  THE_MACHINE,
  UsageError,
  withProject,
  withServices,
} from '../command.ts'

const AGENT_DATA_HELP =
  `--data DIR        with --local: the agent's data directory (env ` +
  `PRINTHUB_AGENT_DATA_DIR, default ${DEFAULT_AGENT_DATA_DIR})`

/** The agent data directory of a --local command. */
export function agentDataDirOf(args: ParsedArgs, io: Io): string {
  return (args.values.data as string | undefined) ?? (io.env.PRINTHUB_AGENT_DATA_DIR || DEFAULT_AGENT_DATA_DIR)
}

/** The printer settings `printers add` was given. */
function printerSettingsInput(args: ParsedArgs): PrinterSettingsFields {
  const widthText = args.values.width as string | undefined
  return {
    id: requireString(args, 'id'),
    connection: requireString(args, 'connection'),
    profile: args.values.profile as string | undefined,
    width: widthText === undefined ? undefined : /^\d+$/.test(widthText) ? Number(widthText) : NaN,
    name: args.values.name as string | undefined,
  }
}

/** A setting that breaks the rules, as a mistake in how the command was called. */
function settingError(problem: SettingProblem): UsageError {
  const hint = problem.field === 'profile' ? ' (see printhub profiles list)' : ''
  return new UsageError(`--${problem.field}${problem.field === 'connection' ? ':' : ''} ${problem.message}${hint}`)
}

/** The printer a project was given, or why it was not, in the CLI's words. */
function addedPrinter(
  outcome: AddPrinterOutcome,
  projectId: string,
  agent?: { agentId: string; agentPrinterId: string },
): PrinterRecord {
  switch (outcome.kind) {
    case 'added':
      return outcome.printer
    case 'invalid':
      throw settingError(outcome.problem)
    case 'unknown_project':
      throw new CliError(`there is no project ${projectId} (see printhub projects list)`)
    case 'taken':
      throw new CliError(`project ${projectId} already has a printer "${outcome.id}"`)
    case 'no_builtin_agent':
      throw new CliError('the built-in agent is not set up yet: run printhub init (or printhub serve) once first')
    case 'unknown_agent':
      throw new CliError(`there is no paired agent ${agent?.agentId} (see printhub agents list)`)
    case 'not_reported':
      throw new CliError(
        `agent ${agent?.agentId} has not reported a printer ` +
          `${agent?.agentPrinterId}; is it connected? (see printhub printers ` +
          `list --agents)`,
      )
    case 'mac_taken':
      throw new CliError(
        `this printer is adopted already, as ${outcome.printer.id} ` +
          `("${outcome.printer.remoteId}") in project ${outcome.printer.projectId}`,
      )
  }
}

export const printersAddCommand: Command = {
  name: 'printers add',
  summary: "add a printer: to a project (the hub's built-in agent drives it), or with --local to this machine's agent",
  usage:
    '(--project ID | --local) --id ID --connection URI [--profile NAME] ' +
    '[--width 58|80] [--name N] [--data DIR | --store URL] [--json]',
  help: [
    '--project ID      the project that prints on it (the printer is attached to the hub)',
    '--local           add it to the agent in --data instead (a remote agent; see printhub agent)',
    '--id ID           the name applications use as printerId, e.g. kitchen (letters, digits, . _ : -)',
    '--connection URI  tcp://HOST[:9100], serial:///dev/ttyUSB0?baud=38400&flow=rtscts,',
    '                  usb:///dev/usb/lp0, usb://VID:PID[/SERIAL], cloudprnt://MAC, epson-sdp://ID, file:///PATH,',
    '                  virtual or virtual://NAME[?mode=ok|fail|offline&delay=MS]',
    `--profile NAME    printer model: ${PROFILES.map((p) => p.id).join(', ')} ` +
      `(default: the generic one of the width, else ${DEFAULT_PROFILE_ID})`,
    "--width 58|80     paper width in mm (default: the profile's)",
    '--name N          a label for people',
    DATA_HELP,
    STORE_HELP,
    AGENT_DATA_HELP,
    JSON_HELP,
  ],
  options: {
    project: { type: 'string' },
    local: { type: 'boolean' },
    id: { type: 'string' },
    connection: { type: 'string' },
    profile: { type: 'string' },
    width: { type: 'string' },
    name: { type: 'string' },
    ...DATA_OPTION,
    ...STORE_OPTION,
    ...JSON_OPTION,
  },
  async run(args, io) {
    noPositionals(args)
    if (args.values.local && args.values.project) throw new UsageError('give either --project or --local')
    if (args.values.local) {
      const dataDir = agentDataDirOf(args, io)
      const checked = checkPrinterSettings({ ...printerSettingsInput(args), confinement: confinementOf(dataDir) })
      if (!checked.ok) throw settingError(checked.problem)
      const settings = checked.settings
      const ledger = Ledger.open(dataDir)
      try {
        const printer = { ...settings, name: settings.name ?? settings.id }
        if (!ledger.addPrinter(printer))
          throw new CliError(`the agent in ${dataDir} already has a printer "${settings.id}"`)
        if (args.values.json) return printJson(io, printer)
        io.out(
          `Added printer "${printer.id}" (${printer.connection}, ` +
            `${printer.profile}, ${printer.width} mm) to the agent in ${dataDir}; a ` +
            `running agent reports it within seconds.`,
        )
        return
      } finally {
        ledger.close()
      }
    }
    const input = printerSettingsInput(args)
    const projectId = requireString(args, 'project')
    // The port the hub listens on when it is started the usual way (serve --port is not known here; the agent checks
    // again).
    const confinement = confinementOf(dataDirOf(args, io), [resolveConfig({}, io.env).port])
    const printer = addedPrinter(
      await withServices(args, io, (services) => services.printers.add(THE_MACHINE, projectId, input, confinement)),
      projectId,
    )
    if (args.values.json) return printJson(io, printer)
    io.out(
      `Added printer ${printer.id} ("${printer.remoteId}", ` +
        `${printer.connection}, ${printer.profile}, ${printer.width} mm).`,
    )
  },
}

export const printersAdoptCommand: Command = {
  name: 'printers adopt',
  summary: 'adopt a printer that polls the hub (Star CloudPRNT, Epson Server Direct Print) into a project',
  usage: 'MAC|ID --project ID --id ID [--profile NAME] [--data DIR | --store URL] [--json]',
  help: [
    "MAC               a Star CloudPRNT printer's Ethernet MAC address (its " +
      "self-test page, or the dashboard's Printers page), e.g. " +
      '00:11:62:12:34:56',
    "ID                or an Epson Server Direct Print printer's ID (its Name " +
      'when the ID is empty: the serial number); cloudprnt://MAC and ' +
      'epson-sdp://ID are taken too',
    '--project ID      the project that prints on it',
    '--id ID           the name applications use as printerId, e.g. bar (letters, digits, . _ : -)',
    `--profile NAME    its model: a StarPRNT one for CloudPRNT (default ` +
      `${POLLING_MODELS.cloudprnt.profile}), an ESC/POS one for Epson (default ` +
      `${POLLING_MODELS['epson-sdp'].profile})`,
    DATA_HELP,
    STORE_HELP,
    JSON_HELP,
  ],
  options: {
    project: { type: 'string' },
    id: { type: 'string' },
    profile: { type: 'string' },
    ...DATA_OPTION,
    ...STORE_OPTION,
    ...JSON_OPTION,
  },
  async run(args, io) {
    const printer = positional(args, 0, 'MAC|ID', 1)
    const projectId = requireString(args, 'project')
    const adoption = { printer, id: requireString(args, 'id'), profile: args.values.profile as string | undefined }
    const confinement = confinementOf(dataDirOf(args, io), [resolveConfig({}, io.env).port])
    const record = addedPrinter(
      await withServices(args, io, (services) =>
        services.printers.adopt(THE_MACHINE, projectId, adoption, confinement),
      ),
      projectId,
    )
    if (args.values.json) return printJson(io, record)
    io.out(
      `Adopted ${printer} as printer ${record.id} ("${record.remoteId}", ` +
        `${record.connection}, ${record.profile}, ${record.width} mm): a running ` +
        `hub offers it jobs within seconds.`,
    )
  },
}

export const printersAssignCommand: Command = {
  name: 'printers assign',
  summary: 'give a project a printer of a paired agent (see printers list --agents)',
  usage:
    '--project ID --agent AGENT_ID --printer AGENT_PRINTER_ID [--id REMOTE_ID] [--name N] ' +
    '[--data DIR | --store URL] [--json]',
  help: [
    '--project ID               the project that prints on it',
    '--agent AGENT_ID           the agent that has the printer',
    "--printer AGENT_PRINTER_ID the printer's ID in that agent's inventory",
    '--id REMOTE_ID             the name applications use as printerId (default: the agent printer ID)',
    '--name N                   a label for people (default: the name the agent reports)',
    DATA_HELP,
    STORE_HELP,
    JSON_HELP,
  ],
  options: {
    project: { type: 'string' },
    agent: { type: 'string' },
    printer: { type: 'string' },
    id: { type: 'string' },
    name: { type: 'string' },
    ...DATA_OPTION,
    ...STORE_OPTION,
    ...JSON_OPTION,
  },
  async run(args, io) {
    noPositionals(args)
    const agentId = requireString(args, 'agent')
    const agentPrinterId = requireString(args, 'printer')
    const projectId = requireString(args, 'project')
    const assignment = {
      projectId,
      agentId,
      agentPrinterId,
      id: args.values.id as string | undefined,
      name: args.values.name as string | undefined,
    }
    const printer = addedPrinter(
      await withServices(args, io, (services) => services.printers.assign(THE_MACHINE, assignment)),
      projectId,
      assignment,
    )
    if (args.values.json) return printJson(io, printer)
    io.out(
      `Assigned printer ${agentPrinterId} of agent ${agentId} to project ` +
        `${printer.projectId} as "${printer.remoteId}" (${printer.id}).`,
    )
  },
}

export const printersListCommand: Command = {
  name: 'printers list',
  summary: "list a project's printers; the printers agents report (--agents); or this machine's agent's (--local)",
  usage: '(--project ID | --agents | --local) [--data DIR | --store URL] [--json]',
  help: [
    '--project ID      the printers of a project',
    '--agents          the printers every paired agent last reported',
    '--local           the printers of the agent in --data',
    DATA_HELP,
    STORE_HELP,
    AGENT_DATA_HELP,
    JSON_HELP,
  ],
  options: {
    project: { type: 'string' },
    agents: { type: 'boolean' },
    local: { type: 'boolean' },
    ...DATA_OPTION,
    ...STORE_OPTION,
    ...JSON_OPTION,
  },
  async run(args, io) {
    noPositionals(args)
    if ([args.values.project !== undefined, args.values.agents, args.values.local].filter(Boolean).length > 1)
      throw new UsageError('give one of --project, --agents or --local')
    if (args.values.local) {
      const ledger = Ledger.open(agentDataDirOf(args, io))
      try {
        return printList(io, args, ledger.printers(), {
          columns: {
            ID: (p) => p.id,
            CONNECTION: (p) => p.connection,
            PROFILE: (p) => p.profile,
            WIDTH: (p) => p.width,
            NAME: (p) => p.name,
          },
          empty: 'No printers.',
        })
      } finally {
        ledger.close()
      }
    }
    if (args.values.agents) {
      const printers = await withServices(args, io, async (services) =>
        (await services.agents.reportedPrinters()).map(({ descriptor: _descriptor, ...printer }) => printer),
      )
      return printList(io, args, printers, {
        columns: {
          AGENT: (p) => p.agentId,
          'AGENT PRINTER': (p) => p.printerId,
          NAME: (p) => p.name,
          AVAILABILITY: (p) => p.availability,
          REPORTED: (p) => p.updatedAt,
        },
        empty: 'No agent has reported printers.',
      })
    }
    const printers = await withProject(args, io, (services, projectId) => services.printers.list(projectId))
    printList(io, args, printers, {
      columns: {
        ID: (p) => p.id,
        'REMOTE ID': (p) => p.remoteId,
        AGENT: (p) => p.agentId,
        CONNECTION: (p) => p.connection,
        PROFILE: (p) => p.profile,
        WIDTH: (p) => p.width,
        NAME: (p) => p.name,
      },
      empty: 'No printers.',
    })
  },
}

export const printersRemoveCommand: Command = {
  name: 'printers remove',
  summary: 'remove a printer record (its jobs keep their history)',
  usage: 'ID [--data DIR | --store URL] [--json]',
  help: [DATA_HELP, STORE_HELP, JSON_HELP],
  options: { ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    const id = positional(args, 0, 'ID', 1)
    if (!(await withServices(args, io, (services) => services.printers.remove(THE_MACHINE, id))))
      throw new CliError(`there is no printer ${id}`)
    if (args.values.json) return printJson(io, { id, removed: true })
    io.out(`Removed printer ${id}.`)
  },
}
