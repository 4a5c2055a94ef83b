// Calls to the admin API from the dashboard: JSON in and out, the session's CSRF token on every
// change, errors as plain sentences; and the live stream of changes.
import { config, t } from './config.ts'
import { fill } from './dom.ts'

/**
 * What went wrong, for the reader: `message` in the page's language (the hub's own sentence when
 * the page speaks the hub's language, else the catalog's for the code), with the code and the
 * hub's own words kept for a details line.
 */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
    readonly hubSaid: string | null = null,
  ) {
    super(message)
  }
}

let csrfToken: string | null = null

export function useCsrfToken(token: string | null): void {
  csrfToken = token
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken
  let response: Response
  try {
    response = await fetch(config.api + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    })
  } catch {
    throw new ApiProblem(0, t.frame.unreachable)
  }
  const answer = await response.json().catch(() => null)
  if (response.status === 401 && path !== '/login' && path !== '/setup') {
    location.assign(`${config.dashboard}/login`)
  }
  if (!response.ok) {
    const error = answer?.error
    const code: string | null = typeof error?.code === 'string' ? error.code : null
    const details: { path: string; message: string }[] = error?.details ?? []
    const hubSaid: string =
      details.length > 0 && code === 'invalid_request' && error.message.endsWith('see details.')
        ? details.map((d) => `${d.path || t.frame.theValue} ${d.message}.`).join(' ')
        : (error?.message ?? fill(t.frame.answered, { status: response.status }))
    const words = code === null ? undefined : (t.errors as Record<string, string>)[code]
    throw new ApiProblem(
      response.status,
      config.language === config.hubLanguage || words === undefined ? hubSaid : words,
      code,
      hubSaid,
    )
  }
  return answer as T
}

/** Calls `changed` with the overview whenever something the dashboard shows changed; reconnects by itself. */
export function watch(changed: (overview: unknown) => void): () => void {
  const source = new EventSource(`${config.api}/events`)
  source.addEventListener('change', (event) => changed(JSON.parse((event as MessageEvent<string>).data)))
  return () => source.close()
}
