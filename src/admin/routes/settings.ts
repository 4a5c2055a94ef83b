// The settings the dashboard changes while the hub runs.
import { ApiError, invalidField } from '../../http/errors.ts'
import { readJsonBody } from '../../http/json-body.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, TECHNICIAN } from '../router.ts'

export function settingsRoutes({ services, settings }: AdminContext) {
  const answer = () => ({ settings: settings.values, pinned: settings.pinned })
  return adminRouter(services, TECHNICIAN)
    .get('/settings', answer)
    .put(
      '/settings',
      async ({ request, actor }) => {
        const body = await readJsonBody(request, 4_096)
        if (typeof body !== 'object' || body === null || Array.isArray(body))
          throw new ApiError('invalid_request', 'Send the settings to change as a JSON object.')
        const outcome = settings.update(body as Record<string, unknown>, actor)
        if (!outcome.ok) throw invalidField(outcome.field, outcome.message, `${outcome.field} ${outcome.message}.`)
        return answer()
      },
      { parse: 'none' },
    )
}
