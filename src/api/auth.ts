// Project API key authentication (specification: Authentication).
import type { ApiKeyScope } from '../protocol/api-key.ts'
import type { ApiKey } from '../domain/records.ts'
import type { HubServices } from '../services/hub-services.ts'
import { ApiError } from '../http/errors.ts'

const CHALLENGE = { 'www-authenticate': 'Bearer' }

function unauthorized(message: string): ApiError {
  return new ApiError('unauthorized', message, { headers: CHALLENGE })
}

/** The active key of the request, bound to `projectId` and holding `scope`; throws 401 or 403 otherwise. */
export async function authenticate(
  { keys }: HubServices,
  request: Request,
  projectId: string,
  scope: ApiKeyScope,
): Promise<ApiKey> {
  const header = request.headers.get('authorization')
  if (header === null) throw unauthorized('Send the project API key as "Authorization: Bearer <key>".')
  const match = /^Bearer ([^\s]+)$/i.exec(header)
  const key = match ? await keys.use(match[1]!) : undefined
  // One answer for malformed, unknown, revoked and other-project keys: nothing to learn by probing.
  if (!key || key.projectId !== projectId) throw unauthorized('The API key is not valid for this project.')
  if (!key.scopes.includes(scope)) throw new ApiError('forbidden', `The API key lacks the ${scope} scope.`)
  return key
}
