import { PAIRING_CODE_TTL_MS } from '../../protocol/pairing.ts'
import {
  type Command,
  DATA_HELP,
  STORE_HELP,
  DATA_OPTION,
  STORE_OPTION,
  JSON_HELP,
  JSON_OPTION,
  noPositionals,
  printJson,
  UsageError,
  THE_MACHINE,
  withServices,
} from '../command.ts'

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }

/** `90s`, `5m`, `2h` or `1500ms`, within the pairing code lifetime range. */
export function parseTtl(text: string): number {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text)
  const ms = match ? Number(match[1]) * UNITS[match[2]!]! : NaN
  if (!(ms >= PAIRING_CODE_TTL_MS.min && ms <= PAIRING_CODE_TTL_MS.max))
    throw new UsageError(`--ttl must be a duration from 10s to 24h, like 5m (got "${text}")`)
  return ms
}

export const pairingCodesCreateCommand: Command = {
  name: 'pairing-codes create',
  summary: 'create a one-time code that pairs an agent with this hub',
  usage: '[--ttl 5m] [--data DIR | --store URL] [--json]',
  help: ['--ttl DURATION    how long the code is valid: 10s to 24h (default 5m)', DATA_HELP, STORE_HELP, JSON_HELP],
  options: { ttl: { type: 'string' }, ...DATA_OPTION, ...STORE_OPTION, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const ttlMs = args.values.ttl === undefined ? PAIRING_CODE_TTL_MS.default : parseTtl(args.values.ttl as string)
    const made = await withServices(args, io, (services) => services.agents.createPairingCode(THE_MACHINE, { ttlMs }))
    if (made.kind !== 'created') throw new Error(`a pairing code asked without a printer was ${made.kind}`)
    const code = { code: made.code, expiresAt: made.expiresAt }
    if (args.values.json) return printJson(io, code)
    io.out(`Pairing code: ${code.code} (single use, valid until ${code.expiresAt})`)
  },
}
