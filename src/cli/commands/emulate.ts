import { EMULATOR_KEEP, type EmulatedReceipt, PrinterEmulator } from '../../emulator/emulator.ts'
import type { PrinterState } from '../../emulator/epson-replies.ts'
import { defaultProfileId, findProfile, PROFILES } from '../../profiles/catalog.ts'
import { PAPER_WIDTHS, type PaperWidth } from '../../protocol/document.ts'
import { parseConnectionUri, SERIAL_BAUD_RATES, SERIAL_FLOW_CONTROLS } from '../../domain/connection-uri.ts'
import {
  CliError,
  type Command,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  type ParsedArgs,
  UsageError,
} from '../command.ts'

const PAPER_STATES = ['ok', 'near-end', 'out'] as const

export const emulateCommand: Command = {
  name: 'emulate',
  summary: 'run a printer emulator: a network or serial receipt printer in software, for trying printhub without one',
  usage:
    '(--listen tcp://HOST[:PORT] | --serial PATH [--baud N] [--buffer BYTES] ' +
    '[--print-rate BYTES] [--flow rtscts|xonxoff|none]) [--profile P] ' +
    '[--width 58|80] [--store DIR] [--paper ok|near-end|out] [--cover-open] ' +
    '[--error] [--offline] [--json]',
  help: [
    '--listen URI      a network printer, listening at tcp://HOST[:PORT] (9100, the port printers use, when left out)',
    '--serial PATH     a serial printer: creates a pseudo-terminal and a link to it at PATH, which',
    '                  printhub opens as serial://PATH... (only the link; the bytes go through the pty)',
    '--baud N          the serial line rate: bytes arrive no faster than N/10 per second (default: no limit)',
    '--buffer BYTES    the serial receive buffer (default 4096); what comes while it is full is lost',
    '--print-rate B    how many bytes a second printing takes from the buffer (default: all at once)',
    "--flow KIND       the printer's flow control: rtscts (default), xonxoff or none; it holds the",
    '                  host back only if the host set its port up the same way',
    `--profile P       the model it reads jobs as: ` +
      `${PROFILES.map((p) => p.id).join(', ')} (default: the generic one of ` +
      `the width)`,
    '--width 58|80     paper width in mm (default 80)',
    '--store DIR       keep each receipt as NNNN.bin (the bytes), NNNN.txt and NNNN.png',
    `                  (the newest ${EMULATOR_KEEP.receipts}, at most ` +
      `${EMULATOR_KEEP.bytes / 1024 / 1024} MiB of jobs: older ones ` +
      `are deleted)`,
    '--paper STATE     what its status says of the paper: ok (default), near-end or out',
    '--cover-open      its status says the cover is open',
    '--error           its status says it has an error (offline)',
    '--offline         its status says it is offline, with no error (waiting for someone)',
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
    offline: { type: 'boolean' },
    serial: { type: 'string' },
    baud: { type: 'string' },
    buffer: { type: 'string' },
    'print-rate': { type: 'string' },
    flow: { type: 'string' },
    ...JSON_OPTION,
  },
  async run(args, io) {
    noPositionals(args)
    const serialPath = args.values.serial as string | undefined
    if ((serialPath === undefined) === (args.values.listen === undefined))
      throw new UsageError('give either --listen tcp://HOST[:PORT] or --serial PATH')
    const widthOption = (args.values.width as string | undefined) ?? '80'
    const width = PAPER_WIDTHS.find((w) => String(w) === widthOption)
    if (width === undefined) throw new UsageError(`--width must be one of ${PAPER_WIDTHS.join(', ')}`)
    const profile = findProfile((args.values.profile as string | undefined) ?? defaultProfileId(width as PaperWidth))
    if (!profile) throw new UsageError(`--profile must be one of ${PROFILES.map((p) => p.id).join(', ')}`)
    if (!profile.widths[width])
      throw new UsageError(`--width must be one of ${profile.paperWidths.join(', ')} for profile ${profile.id}`)
    const paper = (args.values.paper as string | undefined) ?? 'ok'
    if (!PAPER_STATES.some((state) => state === paper))
      throw new UsageError(`--paper must be one of ${PAPER_STATES.join(', ')}`)
    const state: PrinterState = {
      paper: paper as PrinterState['paper'],
      coverOpen: Boolean(args.values['cover-open']),
      error: Boolean(args.values.error),
      offline: Boolean(args.values.offline),
    }
    const json = Boolean(args.values.json)
    const options = {
      profile,
      width,
      store: args.values.store as string | undefined,
      state,
      onReceipt(receipt: EmulatedReceipt) {
        if (json)
          return io.out(
            JSON.stringify({
              event: 'receipt',
              number: receipt.number,
              bytes: receipt.bytes.length,
              held: receipt.held,
              lost: receipt.lost,
              text: receipt.preview.text,
            }),
          )
        const notes = [
          receipt.held ? 'held: the printer could not print when it came' : '',
          receipt.lost ? `${receipt.lost} bytes LOST: they came while the buffer was full` : '',
        ].filter(Boolean)
        io.out(
          `receipt ${receipt.number}: ${receipt.bytes.length} bytes${notes.length ? ` (${notes.join('; ')})` : ''}`,
        )
        for (const line of receipt.preview.text) io.out(`  | ${line}`)
      },
    }
    let emulator: PrinterEmulator
    let url: string
    if (serialPath !== undefined) {
      const line = {
        link: serialPath,
        baud: count(args, 'baud'),
        buffer: count(args, 'buffer'),
        printRate: count(args, 'print-rate'),
        flow: flowOf(args.values.flow as string | undefined),
      }
      emulator = PrinterEmulator.serial({ ...options, ...line })
      const urlBaud = SERIAL_BAUD_RATES.find((rate) => rate === line.baud) ?? 115200
      url = `serial://${serialPath}?baud=${urlBaud}&flow=${line.flow}`
    } else {
      // The address is written as a printer's connection is, so the same URI goes into `printers add`.
      const parsed = parseConnectionUri(args.values.listen as string)
      if (!parsed.ok || parsed.connection.kind !== 'tcp')
        throw new UsageError('--listen must be tcp://HOST[:PORT], as tcp://127.0.0.1:9100')
      const listen = parsed.connection
      emulator = listenOrExplain(listen, () =>
        PrinterEmulator.listen({ hostname: listen.host, port: listen.port, ...options }),
      )
      url = `tcp://${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${emulator.port}`
    }
    if (json) io.out(JSON.stringify({ event: 'listening', url, profile: profile.id, width, state }))
    else
      io.out(
        `Emulating ${profile.name} (${width} mm) at ${url}; add it with: printhub ` +
          `printers add --project ID --id NAME --connection '${url}'`,
      )
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

/** A whole positive number option, or undefined when not given. */
function count(args: ParsedArgs, name: string): number | undefined {
  const text = args.values[name] as string | undefined
  if (text === undefined) return undefined
  if (!/^[1-9]\d{0,8}$/.test(text)) throw new UsageError(`--${name} must be a whole number above 0`)
  return Number(text)
}

function flowOf(text: string | undefined): (typeof SERIAL_FLOW_CONTROLS)[number] {
  const flow = SERIAL_FLOW_CONTROLS.find((kind) => kind === (text ?? 'rtscts'))
  if (!flow) throw new UsageError(`--flow must be one of ${SERIAL_FLOW_CONTROLS.join(', ')}`)
  return flow
}

/** Listening errors in plain words: the port is taken, or needs privileges. */
function listenOrExplain<T>(at: { host: string; port: number }, listen: () => T): T {
  try {
    return listen()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE')
      throw new CliError(`cannot listen at ${at.host}:${at.port}: another program holds that port`)
    if (code === 'EACCES')
      throw new CliError(`cannot listen at ${at.host}:${at.port}: ports below 1024 need privileges (use 9100)`)
    if (code === 'EADDRNOTAVAIL')
      throw new CliError(
        `cannot listen at ${at.host}:${at.port}: no network interface of this machine has that address`,
      )
    throw error
  }
}
