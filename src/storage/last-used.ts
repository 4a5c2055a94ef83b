// A credential's last use (an API key's, an admin token's, a session's) is a hint for people, written at most once a
// quarter of an hour whatever the store: a busy client costs no write per request, and a client that only holds a
// stream open (its key checked again every 30 s) or a dashboard left open costs no write every minute on an SD card
// (about 1 MB an hour at one a minute). A session's idle time (12 hours) may end up to that much sooner.

/** How recent a recorded use may be and still not be written again. */
export const LAST_USED_RESOLUTION_MS = 15 * 60_000

/** Whether a use at `now` is to be written, the last one recorded being `last`. */
export function useIsNews(last: number | null, now: number): boolean {
  return last === null || now - last >= LAST_USED_RESOLUTION_MS
}
