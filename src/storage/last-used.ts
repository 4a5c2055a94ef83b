// A credential's last use (an API key's, an admin token's, a session's) is a hint for people, written at most once a
// minute whatever the store: a busy client costs no write per request.

/** How recent a recorded use may be and still not be written again. */
export const LAST_USED_RESOLUTION_MS = 60_000

/** Whether a use at `now` is to be written, the last one recorded being `last`. */
export function useIsNews(last: number | null, now: number): boolean {
  return last === null || now - last >= LAST_USED_RESOLUTION_MS
}
