// The settings of a printer record (its ID, connection, model, paper width, label), checked the same
// way wherever a printer is added or edited: the CLI, the dashboard, an agent's own list.
import { defaultProfileId, findProfile, PROFILES } from '../profiles/catalog.ts'
import { PAPER_WIDTHS, type PaperWidth } from '../protocol/document.ts'
import { MAX_CONNECTION_LENGTH } from '../protocol/admin/printers.ts'
import { validate } from '../protocol/rules.ts'
import { identifier, shortString } from '../protocol/values.ts'
import { type PollingKind, parseConnectionUri, pollingUri } from '../domain/connection-uri.ts'
import { type Confinement, confineConnection } from '../transports/confine.ts'

/**
 * A printer's settings as given. Its connection is either a URI of a printer this hub (or this
 * agent) drives, checked against what printers may reach, or as a paired agent reported it: how
 * that agent reaches the printer, in its own words (a stock agent names a system queue), kept as it
 * is rather than checked as a hub URI.
 */
export type PrinterSettingsInput = PrinterSettingsFields &
  ({ reportedByAgent: true } | { reportedByAgent?: false | undefined; confinement: Confinement })

/**
 * What a printer that polls is served as: its jobs' commands, and the model it is taken for unless
 * told otherwise (Star's TSP100IV, whose StarPRNT the mC-Print3 speaks too; Epson's TM-m30III).
 */
export const POLLING_MODELS: Record<PollingKind, { commandSet: 'starprnt' | 'escpos'; profile: string; what: string }> =
  {
    cloudprnt: { commandSet: 'starprnt', profile: 'star-tsp143iv', what: 'a StarPRNT model for a CloudPRNT printer' },
    'epson-sdp': {
      commandSet: 'escpos',
      profile: 'epson-tm-m30iii',
      what: 'an ESC/POS model for an Epson Server Direct Print printer',
    },
  }

export interface PrinterSettingsFields {
  id: string
  connection: string
  /** Default: the generic profile of the width. */
  profile?: string | undefined
  /** Default: the profile's. */
  width?: number | undefined
  name?: string | null | undefined
}

export interface PrinterSettings {
  id: string
  connection: string
  profile: string
  width: PaperWidth
  name: string | null
}

/** Which setting is wrong, and why, in words a person acts on. */
export interface SettingProblem {
  field: 'id' | 'connection' | 'profile' | 'width' | 'name'
  message: string
}

export function checkPrinterSettings(
  input: PrinterSettingsInput,
): { ok: true; settings: PrinterSettings } | { ok: false; problem: SettingProblem } {
  const fail = (field: SettingProblem['field'], message: string) => ({
    ok: false as const,
    problem: { field, message },
  })
  // The ID names the agent's printer on the wire, so it must be a protocol identifier.
  const idCheck = validate(identifier, input.id)
  if (!idCheck.ok) return fail('id', idCheck.issues[0]!.message)
  if (input.reportedByAgent) {
    if (input.connection.length > MAX_CONNECTION_LENGTH)
      return fail('connection', `must be at most ${MAX_CONNECTION_LENGTH} characters`)
  }
  const parsed = input.reportedByAgent ? undefined : parseConnectionUri(input.connection)
  if (parsed && !input.reportedByAgent) {
    if (!parsed.ok) return fail('connection', parsed.message)
    const confined = confineConnection(parsed.connection, input.confinement)
    if (!confined.ok) return fail('connection', confined.message)
  }
  const pollingConnection =
    parsed?.ok === true && (parsed.connection.kind === 'cloudprnt' || parsed.connection.kind === 'epson-sdp')
      ? parsed.connection
      : undefined
  const polling = pollingConnection && POLLING_MODELS[pollingConnection.kind]
  const width = input.width as PaperWidth | undefined
  if (width !== undefined && !PAPER_WIDTHS.includes(width))
    return fail('width', `must be one of ${PAPER_WIDTHS.join(', ')}`)
  const profile = findProfile(input.profile ?? (polling ? polling.profile : defaultProfileId(width)))
  if (!profile) return fail('profile', `must be one of ${PROFILES.map((p) => p.id).join(', ')}`)
  // A CloudPRNT printer is served its jobs as StarPRNT; an Epson one as ESC/POS.
  if (polling && profile.commandSet !== polling.commandSet)
    return fail(
      'profile',
      `must be ${polling.what}: ${PROFILES.filter((p) => p.commandSet === polling.commandSet)
        .map((p) => p.id)
        .join(', ')}`,
    )
  if (width !== undefined && !profile.paperWidths.includes(width))
    return fail('width', `must be one of ${profile.paperWidths.join(', ')} for profile ${profile.id}`)
  const name = input.name || null
  if (name !== null) {
    const nameCheck = validate(shortString, name)
    if (!nameCheck.ok) return fail('name', nameCheck.issues[0]!.message)
  }
  const connection = pollingConnection ? pollingUri(pollingConnection) : input.connection
  return {
    ok: true,
    settings: { id: input.id, connection, profile: profile.id, width: width ?? profile.defaultWidth, name },
  }
}
