// How a session's connection is closed (reference section 3.6): the WebSocket close codes, and the
// reasons sent with them.

export const CLOSE_AUTH_FAILED = 4401
export const CLOSE_AUTH_TIMEOUT = 4408
export const CLOSE_PROTOCOL = 4400

/** The reference's close reasons for the disconnects it defines; others close with their reason. */
export const CLOSE_REASONS: Record<string, string> = {
  protocol_error: 'Protocol error',
  heartbeat_timeout: 'Heartbeat timeout',
}

/** Close reasons are bounded and printable (reference 3.6). */
export function sanitize(reason: string): string {
  return reason
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .trim()
    .slice(0, 120)
}
