import { findProfile, PROFILES } from '../../profiles/catalog.ts'
import type { PrinterProfile } from '../../profiles/profile.ts'
import {
  type Command,
  CliError,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  positional,
  printJson,
  printList,
} from '../command.ts'

/** "80 mm: 576 dots, 48 columns" for each paper width. */
const paper = (profile: PrinterProfile) =>
  profile.paperWidths
    .map(
      (width) => `${width} mm: ${profile.widths[width]!.dotsPerLine} dots, ${profile.widths[width]!.columns} columns`,
    )
    .join('; ')

export const profilesListCommand: Command = {
  name: 'profiles list',
  summary: 'list the printer profiles (models) a printer record can name',
  usage: '[--json]',
  help: [JSON_HELP],
  options: { ...JSON_OPTION },
  run(args, io) {
    noPositionals(args)
    printList(io, args, [...PROFILES], {
      columns: { PROFILE: (p) => p.id, NAME: (p) => p.name, COMMANDS: (p) => p.commandSet, PAPER: paper },
      empty: 'No profiles.',
    })
  },
}

export const profilesShowCommand: Command = {
  name: 'profiles show',
  summary: 'show everything a printer profile says about its model',
  usage: 'PROFILE [--json]',
  help: [JSON_HELP],
  options: { ...JSON_OPTION },
  run(args, io) {
    const id = positional(args, 0, 'profile', 1)
    const profile = findProfile(id)
    if (!profile) throw new CliError(`there is no profile ${id} (see printhub profiles list)`)
    if (args.values.json) return printJson(io, profile)
    const yes = (value: boolean) => (value ? 'yes' : 'no')
    const lines: [string, string][] = [
      ['Profile', profile.id],
      ['Model', `${profile.name} (${profile.vendor})`],
      ['Commands', profile.commandSet === 'escpos' ? 'ESC/POS' : 'StarPRNT'],
      ['Paper', `${paper(profile)} (default ${profile.defaultWidth} mm)`],
      ['Code pages', profile.codePages.map(({ page, table }) => `${page} (${table})`).join(', ')],
      [
        'Cut',
        profile.cut.kind === 'none'
          ? `none: tear bar, ${profile.cut.feedLines} lines fed`
          : `${profile.cut.kind}, ${profile.cut.feedLines} lines fed first`,
      ],
      ['QR codes', yes(profile.qr)],
      ['Barcodes', profile.barcodes.join(', ') || 'none'],
      ['Raster', `bands of ${profile.raster.maxBandRows} rows`],
      [
        'Status',
        `real-time ${yes(profile.status.realtime)}, automatic status back ` +
          `${yes(profile.status.automaticStatusBack)}, process ID response ` +
          `${yes(profile.status.processIdResponse)}`,
      ],
      ['Cash drawer', profile.drawer ? `pins ${profile.drawer.pins.join(' and ')}` : 'none'],
      ['Buzzer', profile.buzzer],
      [
        'Serial default',
        profile.serial ? `${profile.serial.baud} baud, flow ${profile.serial.flow}` : 'no serial interface',
      ],
      ['USB IDs', profile.usb.map((id) => `${id.vendorId}:${id.productId}`).join(', ') || 'none known'],
    ]
    const width = Math.max(...lines.map(([label]) => label.length))
    for (const [label, value] of lines) io.out(`${label.padEnd(width)}  ${value}`)
  },
}
