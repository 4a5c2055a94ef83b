import { readFileSync, writeFileSync } from 'node:fs'
import { documentRule, type PaperWidth, PAPER_WIDTHS } from '../../protocol/document.ts'
import { validate } from '../../protocol/rules.ts'
import { defaultProfileId, findProfile, PROFILES } from '../../profiles/catalog.ts'
import { previewFor } from '../../preview/preview.ts'
import { renderOffThread } from '../../render/off-thread.ts'
import { sectionsLeftOut } from '../../render/capabilities.ts'
import { RenderError } from '../../render/render.ts'
import { type Command, CliError, JSON_HELP, JSON_OPTION, positional, printJson, UsageError } from '../command.ts'

/** A document file may hold the document itself or a whole job request (`{ "document": ... }`). */
function readDocument(path: string): unknown {
  let text: string
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8')
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new CliError(`${path} is not JSON: ${(error as Error).message}`)
  }
  return parsed !== null && typeof parsed === 'object' && 'document' in parsed ? parsed.document : parsed
}

export const renderCommand: Command = {
  name: 'render',
  summary: 'render a print document as a printer would print it: text preview, PNG, ESC/POS bytes',
  usage: 'FILE.json [--profile P] [--width 58|80] [--png OUT] [--escpos OUT] [--json]',
  help: [
    'FILE.json         a print document, or a job request with a "document" (- reads standard input)',
    `--profile P       printer model: ${PROFILES.map((p) => p.id).join(', ')} (default: the generic one of the width)`,
    "--width 58|80     paper width in mm (default: the document's)",
    '--png OUT         write a picture of the receipt (PNG, one pixel per printer dot)',
    '--escpos OUT      write the bytes the printer would be sent',
    JSON_HELP,
  ],
  options: {
    profile: { type: 'string' },
    width: { type: 'string' },
    png: { type: 'string' },
    escpos: { type: 'string' },
    ...JSON_OPTION,
  },
  async run(args, io) {
    const path = positional(args, 0, 'document file', 1)
    const widthOption = args.values.width as string | undefined
    if (widthOption !== undefined && !PAPER_WIDTHS.some((w) => String(w) === widthOption))
      throw new UsageError(`--width must be one of ${PAPER_WIDTHS.join(', ')}`)
    const checked = validate(documentRule, readDocument(path))
    if (!checked.ok) {
      const issues = checked.issues.map((issue) => `  ${issue.path || 'document'}: ${issue.message}`)
      throw new CliError(`the document is not valid:\n${issues.join('\n')}`)
    }
    const document = checked.value
    const width = widthOption === undefined ? document.width : (Number(widthOption) as PaperWidth)
    const profileId = (args.values.profile as string | undefined) ?? defaultProfileId(width)
    const profile = findProfile(profileId)
    if (!profile)
      throw new UsageError(
        `--profile must be one of ${PROFILES.map((p) => p.id).join(', ')} (see printhub profiles list)`,
      )
    let bytes: Uint8Array
    try {
      bytes = await renderOffThread({ document, profile: profile.id, width })
    } catch (error) {
      if (error instanceof RenderError)
        throw new CliError(`cannot print this document on ${profile.id}: ${error.code}: ${error.message}`)
      throw error
    }
    const { receipt, text, png } = previewFor(bytes, profile, width)
    // What the model cannot do at all (a buzzer it lacks): left out of the bytes, said here.
    const leftOut = sectionsLeftOut(document.sections, profile).map(({ path, message }) => `${path}: ${message}`)
    if (args.values.escpos) writeFileSync(args.values.escpos as string, bytes)
    if (args.values.png) writeFileSync(args.values.png as string, png())
    if (args.values.json)
      return printJson(io, {
        profile: profile.id,
        width,
        bytes: bytes.length,
        text,
        warnings: receipt.warnings,
        leftOut,
      })
    const rule = '·'.repeat(profile.widths[width]!.columns)
    io.out(rule)
    for (const line of text) io.out(line)
    io.out(rule)
    io.out(
      `${bytes.length} bytes for ${profile.name}, ${width} ` +
        `mm${receipt.warnings.length ? `; ${receipt.warnings.length} warnings from the preview` : ''}`,
    )
    for (const warning of receipt.warnings) io.err(`warning: ${warning}`)
    for (const section of leftOut) io.err(`left out: ${section}`)
  },
}
