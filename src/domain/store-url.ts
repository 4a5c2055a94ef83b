// Where the hub's data is kept when it is not the data directory's SQLite file: a PostgreSQL database, for a cluster
// of nodes (`--store postgres://…`, or PRINTHUB_DATABASE_URL). Its password is a secret: a URL is only ever shown
// with the password left out.

/** The environment variable that gives the store's URL when --store does not. */
export const DATABASE_URL_VARIABLE = 'PRINTHUB_DATABASE_URL'

/** The longest URL taken (a URL with its query parameters; a longer one is a mistake). */
const MAX_URL_LENGTH = 2_048

export type StoreUrlParse = { ok: true; url: string } | { ok: false; message: string }

/** A PostgreSQL URL (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`), or why it is not one, in words without it. */
export function parseStoreUrl(text: string): StoreUrlParse {
  if (text.length > MAX_URL_LENGTH) return { ok: false, message: `is longer than ${MAX_URL_LENGTH} characters` }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { ok: false, message: 'is not a URL: give postgres://USER:PASSWORD@HOST:PORT/DATABASE' }
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    return { ok: false, message: `is a ${url.protocol.replace(/:$/, '')} URL: give a postgres:// one` }
  if (url.hostname === '')
    return { ok: false, message: 'names no host: give postgres://USER:PASSWORD@HOST:PORT/DATABASE' }
  if (url.pathname.replace(/^\//, '') === '') return { ok: false, message: 'names no database: end it with /DATABASE' }
  return { ok: true, url: text }
}

/** The URL as it may be shown or logged: its password replaced by `***`. */
export function shownStoreUrl(text: string): string {
  try {
    const url = new URL(text)
    if (url.password !== '') url.password = '***'
    return url.toString()
  } catch {
    return '(a URL that cannot be read)'
  }
}
