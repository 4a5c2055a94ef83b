// The settings the dashboard changes while the hub runs. A change is checked by the settings'
// operation (services/live-settings.ts), in its own words (a setting the environment pins, the
// longest retry delay at least the first); the contract's rule of it (SETTINGS_RULES.change) says
// the same shape and ranges for the OpenAPI document.
import { ApiError, invalidField } from '../../http/errors.ts'
import { readJsonBody } from '../../http/json-body.ts'
import { SETTINGS_BODY_BYTES, type SettingsAnswer } from '../../protocol/admin/settings.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, TECHNICIAN } from '../router.ts'

export function settingsRoutes({ services, settings }: AdminContext) {
  const answer = (): SettingsAnswer => ({ settings: settings.values, pinned: [...settings.pinned] })
  return adminRouter(services, TECHNICIAN)
    .get('/settings', answer)
    .put(
      '/settings',
      async ({ request, actor }) => {
        const body = await readJsonBody(request, SETTINGS_BODY_BYTES)
        if (typeof body !== 'object' || body === null || Array.isArray(body))
          throw new ApiError('invalid_request', 'Send the settings to change as a JSON object.')
        const outcome = await settings.update(body as Record<string, unknown>, actor)
        if (!outcome.ok) throw invalidField(outcome.field, outcome.message, `${outcome.field} ${outcome.message}.`)
        return answer()
      },
      { parse: 'none' },
    )
}
