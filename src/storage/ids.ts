// Record identifiers: a type prefix and a time-ordered UUIDv7 in hex, valid OpenPrinter identifiers.

export type IdPrefix = 'prj' | 'apk' | 'prn' | 'job' | 'agt' | 'key' | 'srv' | 'ses' | 'adt' | 'whk' | 'dst' | 'usr'

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${Bun.randomUUIDv7().replace(/-/g, '')}`
}
