// The dashboard's pages: one HTML shell and its assets (assets.ts), embedded in the program. The
// assets are loaded and built when the dashboard is first asked for (a hub whose dashboard nobody
// opens neither spends its start-up on that nor holds the result); the shell carries the rules the
// browser code shares with the hub; everything is sent gzipped when the browser takes it. Without a
// session, the dashboard sends the browser to the sign-in page.
import { Elysia } from 'elysia'
import { DASHBOARD_PATH } from '../protocol/admin-api.ts'
import { pickLanguage } from '../protocol/messages/index.ts'
import type { Asset, Assets } from './assets.ts'

/** The pages allow only the hub's own scripts, styles and images; nothing may frame them. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data: blob:; script-src 'self'; " +
    "style-src 'self'; connect-src 'self'; base-uri 'none'; form-action " +
    "'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
}

function send(request: Request, file: Asset, headers: Record<string, string> = {}): Response {
  const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')
  return new Response(gzip ? file.gzipped : file.body, {
    headers: {
      'content-type': file.type,
      vary: 'accept-encoding',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      ...headers,
    },
  })
}

/** What the pages need of the hub: the account a browser is signed in as (the admin edge knows). */
export interface DashboardContext {
  account(request: Request): Promise<{ language: string | null } | undefined>
}

export function dashboardPages({ account }: DashboardContext) {
  let built: Promise<Assets> | undefined
  const assets = () => (built ??= import('./assets.ts').then((module) => module.buildAssets()))
  const redirect = (to: string) => new Response(null, { status: 303, headers: { location: to } })
  // The signed-in account's language, else the browser's.
  const page = async (request: Request) => {
    const signedIn = await account(request)
    return send(
      request,
      (await assets()).shells.get(pickLanguage(request.headers.get('accept-language'), signedIn?.language))!,
      { ...PAGE_HEADERS, vary: 'accept-encoding, accept-language, cookie' },
    )
  }
  const signedIn = async (request: Request) => (await account(request)) !== undefined
  return (
    new Elysia()
      .get('/', () => redirect(`${DASHBOARD_PATH}/`))
      // Also answers /dashboard (paths match with or without the last slash).
      .get(`${DASHBOARD_PATH}/`, async ({ request }) =>
        (await signedIn(request)) ? page(request) : redirect(`${DASHBOARD_PATH}/login`),
      )
      .get(`${DASHBOARD_PATH}/login`, async ({ request }) =>
        (await signedIn(request)) ? redirect(`${DASHBOARD_PATH}/`) : page(request),
      )
      .get(`${DASHBOARD_PATH}/setup`, ({ request }) => page(request))
      .get(`${DASHBOARD_PATH}/assets/*`, async ({ request, params }) => {
        const file = (await assets()).files.get(params['*'])
        if (!file) return new Response('Not found', { status: 404 })
        return send(request, file)
      })
  )
}
