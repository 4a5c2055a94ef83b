// Commands read for their length only, in a table per command language: `drawn` is left out for
// those that change nothing printed (line spacing, the drawer, status); otherwise it tells whether
// the parameters ask only for what the preview draws (the defaults), and a warning names the
// command when they do not.
import type { ByteReader } from './byte-reader.ts'
import type { Warnings } from './warnings.ts'

export interface ParameterCommand {
  readonly name: string
  readonly parameters: number
  readonly drawn?: (parameters: Uint8Array) => boolean
}

export type ParameterCommands = Readonly<Record<number, ParameterCommand>>

export const never = () => false
/** Every parameter 0. */
export const isZero = (parameters: Uint8Array) => parameters.every((p) => p === 0)
/** Every parameter 0, or "0" (48), which most commands take alike. */
export const isZeroOrAsciiZero = (parameters: Uint8Array) => parameters.every((p) => p === 0 || p === 48)
/** The lowest bit of the parameter clear: the "off" of on/off commands. */
export const isOff = (parameters: Uint8Array) => (parameters[0]! & 1) === 0

/** Where a command is read: the bytes after its code, the warnings, and the command's offset. */
export interface CommandReading {
  reader: ByteReader
  warnings: Warnings
  offset: number
}

/** Reads the command `code` of the table for its length; false when the table has no such command. */
export function readParameterCommand(
  commands: ParameterCommands,
  code: number,
  { reader, warnings, offset }: CommandReading,
): boolean {
  const command = commands[code]
  if (!command) return false
  const parameters = reader.take(command.parameters)
  if (command.drawn && !command.drawn(parameters)) warnings.add(offset, `${command.name} is not drawn by the preview`)
  return true
}
