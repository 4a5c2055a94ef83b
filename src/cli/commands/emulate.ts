import { PrinterEmulator } from '../../emulator/emulator.ts'
import type { PrinterState } from '../../emulator/epson-replies.ts'
import { defaultProfileId, findProfile, PROFILES } from '../../profiles/catalog.ts'
import { PAPER_WIDTHS, type PaperWidth } from '../../protocol/document.ts'
import { parseConnectionUri } from '../../transports/connection-uri.ts'
import { CliError, type Command, JSON_HELP, JSON_OPTION, noPositionals, UsageError } from '../command.ts'

const PAPER_STATES = ['ok', 'near-end', 'out'] as const

export const emulateCommand: Command = {
  name: 'emulate',
  summary: 'run a printer emulator: a network receipt printer in software, for trying printhub without one',
  usage: '--listen tcp://HOST[:PORT] [--profile P] [--width 58|80] [--store DIR] [--paper ok|near-end|out] [--cover-open] [--error] [--json]',
  help: [
    '--listen URI      where to listen, as tcp://127.0.0.1:9100 (9100, the port printers use, when left out)',
    `--profile P       the model it reads jobs as: ${PROFILES.map((p) => p.id).join(', ')} (default: the generic one of the width)`,
    '--width 58|80     paper width in mm (default 80)',
    '--store DIR       keep each receipt as NNNN.bin (the bytes), NNNN.txt and NNNN.png',
    '--paper STATE     what its status says of the paper: ok (default), near-end or out',
    '--cover-open      its status says the cover is open',
    '--error           its status says it has an error (offline)',
    JSON_HELP,
  ],
  options: {
    listen: { type: 'string' },
    profile: { type: 'string' },
    width: { type: 'string' },
    store: { type: 'string' },
    paper: { type: 'string' },
    'cover-open': { type: 'boolean' },
    error: { type: 'boolean' },
    ...JSON_OPTION,
  },
  async run(args, io) {
    noPositionals(args)
    // The address is written as a printer's connection is, so the same URI goes into `printers add`.
    const parsed = parseConnectionUri((args.values.listen as string | undefined) ?? '')
    if (!parsed.ok || parsed.connection.kind !== 'tcp') throw new UsageError('--listen must be tcp://HOST[:PORT], as tcp://127.0.0.1:9100')
    const listen = parsed.connection
    const widthOption = (args.values.width as string | undefined) ?? '80'
    const width = PAPER_WIDTHS.find((w) => String(w) === widthOption)
    if (width === undefined) throw new UsageError(`--width must be one of ${PAPER_WIDTHS.join(', ')}`)
    const profile = findProfile((args.values.profile as string | undefined) ?? defaultProfileId(width as PaperWidth))
    if (!profile) throw new UsageError(`--profile must be one of ${PROFILES.map((p) => p.id).join(', ')}`)
    if (!profile.widths[width]) throw new UsageError(`--width must be one of ${profile.paperWidths.join(', ')} for profile ${profile.id}`)
    const paper = (args.values.paper as string | undefined) ?? 'ok'
    if (!PAPER_STATES.some((state) => state === paper)) throw new UsageError(`--paper must be one of ${PAPER_STATES.join(', ')}`)
    const state: PrinterState = { paper: paper as PrinterState['paper'], coverOpen: Boolean(args.values['cover-open']), error: Boolean(args.values.error) }
    const json = Boolean(args.values.json)
    const emulator = listenOrExplain(listen, () => PrinterEmulator.listen({
      hostname: listen.host,
      port: listen.port,
      profile,
      width,
      store: args.values.store as string | undefined,
      state,
      onReceipt(receipt) {
        if (json) return io.out(JSON.stringify({ event: 'receipt', number: receipt.number, bytes: receipt.bytes.length, held: receipt.held, text: receipt.preview.text }))
        io.out(`receipt ${receipt.number}: ${receipt.bytes.length} bytes${receipt.held ? ' (held: the printer could not print when it came)' : ''}`)
        for (const line of receipt.preview.text) io.out(`  | ${line}`)
      },
    }))
    const url = `tcp://${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${emulator.port}`
    if (json) io.out(JSON.stringify({ event: 'listening', url, profile: profile.id, width, state }))
    else io.out(`Emulating ${profile.name} (${width} mm) at ${url}; add it with: printhub printers add --project ID --id NAME --connection ${url}`)
    await new Promise<void>((resolve) => {
      const stop = () => {
        emulator.stop()
        resolve()
      }
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
  },
}

/** Listening errors in plain words: the port is taken, or needs privileges. */
function listenOrExplain<T>(at: { host: string; port: number }, listen: () => T): T {
  try {
    return listen()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') throw new CliError(`cannot listen at ${at.host}:${at.port}: another program holds that port`)
    if (code === 'EACCES') throw new CliError(`cannot listen at ${at.host}:${at.port}: ports below 1024 need privileges (use 9100)`)
    if (code === 'EADDRNOTAVAIL') throw new CliError(`cannot listen at ${at.host}:${at.port}: no network interface of this machine has that address`)
    throw error
  }
}
