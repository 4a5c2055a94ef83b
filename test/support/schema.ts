// The OpenPrinter JSON Schema, the oracle for what the hub puts on the wire, and the protocol's
// fixtures: vendored in src/protocol/openprinter/ (see ORIGIN.md there).
import Ajv2020 from 'ajv/dist/2020'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export const OPENPRINTER_DIR = join(import.meta.dir, '..', '..', 'src', 'protocol', 'openprinter')

const schema = JSON.parse(readFileSync(join(OPENPRINTER_DIR, 'schema', 'openprinter.schema.json'), 'utf8'))
// unicode: false counts string lengths in UTF-16 units, as the reference implementation does.
const ajv = new Ajv2020({ unicode: false, strict: true, allErrors: true, logger: false })

const auth = schema.anyOf[1].anyOf
const messages = schema.anyOf[0].anyOf
export const validators = {
  discovery: ajv.compile(auth[0]),
  pairingRequest: ajv.compile(auth[1]),
  pairingResponse: ajv.compile(auth[2]),
  errorEnvelope: ajv.compile(auth[3]),
  authChallenge: ajv.compile(auth[4]),
  authResponse: ajv.compile(auth[5]),
  authAccepted: ajv.compile(auth[6]),
  authRejected: ajv.compile(auth[7]),
  agentMessage: ajv.compile(messages[0]),
  serverMessage: ajv.compile(messages[1]),
}

export function fixtureNames(folder: string): string[] {
  return readdirSync(join(OPENPRINTER_DIR, 'fixtures', folder)).filter((name) => name.endsWith('.json'))
}

export function fixture(path: string): any {
  return JSON.parse(readFileSync(join(OPENPRINTER_DIR, 'fixtures', path), 'utf8'))
}

/** Asserts `value` is valid for `validator`, showing Ajv's errors when it is not. */
export function schemaErrors(validator: (typeof validators)[keyof typeof validators], value: unknown): unknown[] {
  return validator(value) ? [] : (validator.errors ?? [])
}
