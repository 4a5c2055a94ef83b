// The technician's checks of printers attached to this machine: what is plugged in (detect), whether
// one address answers (probe), and a test page (test). They talk to the printer directly, not
// through the queue, so they work before the hub runs and show the printer's own answer.
import { Ledger } from '../../agent/ledger.ts'
import { resolveConfig, resolveDataDir } from '../../hub/config.ts'
import { confinementOf } from '../../transports/confine.ts'
import { hubOnTheLan } from '../../services/lan.ts'
import { testPage } from '../../services/test-page.ts'
import { findProfile } from '../../profiles/catalog.ts'
import { render, RenderError, targetFor } from '../../render/render.ts'
import { parseConnectionUri } from '../../domain/connection-uri.ts'
import { detectPrinters } from '../../transports/detect.ts'
import { DeviceFinder } from '../../transports/devices.ts'
import type { PrinterCondition } from '../../transports/printer-status.ts'
import { probe, speaksBack, submit, type Transports } from '../../transports/submit.ts'
import { loadUsbBackend } from '../../transports/usb-bulk.ts'
import { VirtualPrinters } from '../../transports/virtual.ts'
import {
  CliError,
  type Command,
  DATA_HELP,
  dataDirOf,
  DATA_OPTION,
  STORE_HELP,
  STORE_OPTION,
  type Io,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  type ParsedArgs,
  positional,
  printJson,
  UsageError,
  withProject,
} from '../command.ts'
import { agentDataDirOf } from './printers.ts'

/**
 * The links of a check; `dataDir`: whose output folder a file printer writes in (the hub's, or the agent's with
 * --local).
 */
const transports = (io: Io, dataDir: string): Transports => ({
  virtuals: new VirtualPrinters(),
  devices: new DeviceFinder(),
  usb: loadUsbBackend,
  confinement: confinementOf(dataDir, [resolveConfig({}, io.env).port]),
})

export const printersDetectCommand: Command = {
  name: 'printers detect',
  summary:
    'list the printers plugged into this machine (serial ports, USB printers), with the connection and profile to use',
  usage: '[--json]',
  help: ['Network printers are not scanned for: check one address with printhub printers probe.', JSON_HELP],
  options: { ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const { printers, usbError } = await detectPrinters(undefined, loadUsbBackend)
    if (args.values.json) return printJson(io, { printers, usbError })
    if (printers.length === 0) io.out('No serial ports or USB printers found.')
    for (const printer of printers) {
      const maker = printer.usb?.vendor
        ? ` (${[printer.usb.vendor, printer.usb.product].filter(Boolean).join(' ')})`
        : ''
      const usb = printer.usb ? ` USB ${printer.usb.vendorId}:${printer.usb.productId}${maker}` : ''
      const guess = printer.suggestion === 'vendor' ? ' (a guess from the vendor: check the model)' : ''
      const profile = printer.suggestedProfile ? `  profile: ${printer.suggestedProfile}${guess}` : ''
      io.out(
        `${printer.kind.padEnd(6)} ` +
          `${printer.connection}${usb}${printer.driver ? ` [${printer.driver}]` : ''}${profile}`,
      )
    }
    if (usbError) io.out(`USB devices without the usblp driver could not be listed: ${usbError}`)
  },
}

function describeCondition(condition: PrinterCondition | null): string {
  if (!condition)
    return 'it does not answer status requests (write-only: jobs count as printed once it took every byte)'
  const problems = [
    !condition.online && 'offline',
    condition.paper === 'out' && 'out of paper',
    condition.paper === 'near-end' && 'paper running low',
    condition.coverOpen && 'cover open',
    condition.error && 'error',
  ].filter(Boolean)
  return problems.length ? problems.join(', ') : 'online, paper ok'
}

export const printersProbeCommand: Command = {
  name: 'printers probe',
  summary: 'check one printer connection: is the printer there, and what does its status say',
  usage: 'URI [--json]',
  help: [
    'URI               tcp://HOST[:9100], serial:///dev/ttyUSB0?baud=..., usb:///dev/usb/lp0 or usb://VID:PID',
    JSON_HELP,
  ],
  options: { ...JSON_OPTION },
  async run(args, io) {
    const uri = positional(args, 0, 'URI', 1)
    const parsed = parseConnectionUri(uri)
    if (!parsed.ok) throw new UsageError(parsed.message)
    if (!speaksBack(parsed.connection))
      throw new UsageError(`${uri}: only network, serial and USB printers can be probed`)
    const probed = await probe(parsed.connection, transports(io, resolveDataDir({}, io.env)))
    if (!probed.ok) {
      if (args.values.json)
        printJson(io, {
          connection: uri,
          reachable: false,
          error: { code: probed.failure.code, message: probed.failure.message },
        })
      else io.err(`${uri}: ${probed.failure.message}`)
      return 1
    }
    if (args.values.json) return printJson(io, { connection: uri, reachable: true, status: probed.condition })
    io.out(`${uri}: reachable; ${describeCondition(probed.condition)}`)
  },
}

async function printerToTest(
  args: ParsedArgs,
  io: Io,
  id: string,
): Promise<{ id: string; connection: string; profile: string; width: 58 | 80 }> {
  if (args.values.local) {
    const ledger = Ledger.open(agentDataDirOf(args, io))
    try {
      const printer = ledger.printers().find((p) => p.id === id)
      if (!printer)
        throw new CliError(`this machine's agent has no printer "${id}" (see printhub printers list --local)`)
      return printer
    } finally {
      ledger.close()
    }
  }
  return withProject(args, io, async (services, projectId) => {
    const printer = (await services.printers.list(projectId)).find((p) => p.remoteId === id)
    if (!printer)
      throw new CliError(
        `project ${projectId} has no printer "${id}" (see printhub printers list --project ${projectId})`,
      )
    if (printer.agentId !== (await services.agents.builtin())?.id)
      throw new CliError(
        `printer "${id}" is attached to agent ${printer.agentId}: run printhub ` +
          `printers test ${printer.agentPrinterId} --local on that machine`,
      )
    return { id, connection: printer.connection, profile: printer.profile, width: printer.width }
  })
}

export const printersTestCommand: Command = {
  name: 'printers test',
  summary: 'print a test page on a printer of this machine (hub name, addresses, model, status, a QR code to the hub)',
  usage: 'ID (--project ID | --local) [--data DIR | --store URL] [--json]',
  help: [
    'ID                the printer, as applications name it (printerId)',
    '--project ID      a printer of the hub, in this project',
    "--local           a printer of this machine's agent (see printhub agent)",
    'It prints directly, not through the queue: it works before the hub runs. Do not run it while the',
    'printer is printing a job.',
    DATA_HELP,
    STORE_HELP,
    JSON_HELP,
  ],
  options: { project: { type: 'string' }, local: { type: 'boolean' }, ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    const id = positional(args, 0, 'ID', 1)
    if (Boolean(args.values.local) === (args.values.project !== undefined))
      throw new UsageError('give either --project ID or --local')
    const printer = await printerToTest(args, io, id)
    const parsed = parseConnectionUri(printer.connection)
    if (!parsed.ok) throw new CliError(`printer "${id}" has an invalid connection: ${parsed.message}`)
    const links = transports(io, args.values.local ? agentDataDirOf(args, io) : dataDirOf(args, io))
    let status = 'not asked (virtual printer or file)'
    if (speaksBack(parsed.connection) && findProfile(printer.profile)?.status.realtime) {
      const probed = await probe(parsed.connection, links)
      // A printer that cannot be reached fails the test page below, saying why.
      if (probed.ok) status = describeCondition(probed.condition)
    }
    const config = resolveConfig({}, io.env)
    const hub = hubOnTheLan(config.serverName, config.host, config.port)
    let bytes: Uint8Array
    try {
      bytes = render(
        testPage(printer, hub, status, new Date()),
        targetFor(printer.profile, printer.width, parsed.connection.kind),
      )
    } catch (error) {
      if (error instanceof RenderError)
        throw new CliError(`the test page cannot be printed on this model: ${error.message}`)
      throw error
    }
    const submitted = await submit(parsed.connection, bytes, new AbortController().signal, {
      transports: links,
      model: printer,
    })
    const outcome = submitted.ok ? ((await submitted.printed) ?? submitted) : submitted
    if (!outcome.ok) {
      if ('cancelled' in outcome) throw new Error('the test page was cancelled, but nothing cancels it')
      const { code, message } = outcome.failure
      if (args.values.json) printJson(io, { printer: id, printed: false, error: { code, message }, status })
      else io.err(`The test page did not print on "${id}": ${message} (${code})`)
      return 1
    }
    const confirmed = submitted.ok && submitted.printed !== undefined
    if (args.values.json) return printJson(io, { printer: id, printed: true, confirmed, status })
    io.out(
      `Printed a test page on "${id}" ` +
        `(${printer.connection})${confirmed ? ', and the printer confirmed it' : ''}; ` +
        `status before: ${status}.`,
    )
  },
}
