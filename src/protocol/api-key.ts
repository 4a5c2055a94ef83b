// Project API keys as applications see them (specification: Authentication).

export const API_KEY_PREFIX = 'phk_'
/** `phk_` and 32 random bytes in unpadded base64url. */
export const API_KEY_PATTERN = /^phk_[A-Za-z0-9_-]{43}$/
/** The display prefix: enough to tell keys apart, far too little to guess one. */
export const API_KEY_DISPLAY_LENGTH = API_KEY_PREFIX.length + 8

/**
 * jobs:read and jobs:write (the specification's); printers:read: the project's printers and their
 * state, and its destinations; printers:write: its destinations; webhooks:write: its webhooks.
 */
export const API_KEY_SCOPES = ['jobs:read', 'jobs:write', 'printers:read', 'printers:write', 'webhooks:write'] as const
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number]

export function isApiKeyScope(value: string): value is ApiKeyScope {
  return API_KEY_SCOPES.includes(value as ApiKeyScope)
}
