/** Stored times are milliseconds since the epoch; the API shows them as ISO 8601 UTC. */
export function iso(ms: number): string {
  return new Date(ms).toISOString()
}

export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms)
}
