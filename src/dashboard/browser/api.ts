// Calls to the admin API from the dashboard: JSON in and out, the session's CSRF token on every
// change, errors as plain sentences; and the live stream of changes.
import { config } from './config.ts'

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: { path: string; message: string }[] = [],
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
    response = await fetch(config.api + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' })
  } catch {
    throw new ApiProblem(0, 'The hub cannot be reached. Check the network, then try again.')
  }
  const answer = await response.json().catch(() => null)
  if (response.status === 401 && path !== '/login' && path !== '/setup') {
    location.assign(`${config.dashboard}/login`)
  }
  if (!response.ok) {
    const error = answer?.error
    const details: { path: string; message: string }[] = error?.details ?? []
    const message = details.length > 0 && error?.code === 'invalid_request' && error.message.endsWith('see details.') ? details.map((d) => `${d.path || 'The value'} ${d.message}.`).join(' ') : error?.message
    throw new ApiProblem(response.status, message ?? `The hub answered ${response.status}.`, details)
  }
  return answer as T
}

/** Calls `changed` with the overview whenever something the dashboard shows changed; reconnects by itself. */
export function watch(changed: (overview: unknown) => void): () => void {
  const source = new EventSource(`${config.api}/events`)
  source.addEventListener('change', (event) => changed(JSON.parse((event as MessageEvent<string>).data)))
  return () => source.close()
}
