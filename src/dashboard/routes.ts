// The dashboard's pages: one HTML shell and its assets, embedded in the program. The browser code
// is TypeScript, turned into JavaScript once at start; everything is sent gzipped when the browser
// takes it. Without a session, the dashboard sends the browser to the sign-in page.
import { Elysia } from 'elysia'
import { DASHBOARD_PATH } from '../protocol/admin-api.ts'
import { cookieValue, SESSION_COOKIE } from '../admin/auth.ts'
import type { AdminContext } from '../admin/context.ts'
import htmlText from './browser/index.html' with { type: 'text' }
import css from './browser/style.css' with { type: 'text' }
// @ts-expect-error: a text import; TypeScript would type it as the module itself.
import apiSource from './browser/api.ts' with { type: 'text' }
// @ts-expect-error: as above.
import appSource from './browser/app.ts' with { type: 'text' }
// @ts-expect-error: as above.
import domSource from './browser/dom.ts' with { type: 'text' }
// @ts-expect-error: as above.
import pagesSource from './browser/pages.ts' with { type: 'text' }

/** The pages allow only the hub's own scripts, styles and images; nothing may frame them. */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data: blob:; script-src 'self'; style-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
}

interface Asset {
  type: string
  body: Uint8Array<ArrayBuffer>
  gzipped: Uint8Array<ArrayBuffer>
}

function asset(type: string, text: string): Asset {
  const body = new TextEncoder().encode(text)
  return { type, body, gzipped: Bun.gzipSync(body, { level: 9 }) }
}

function typescriptAssets(sources: Record<string, string>): Record<string, Asset> {
  const transpiler = new Bun.Transpiler({ loader: 'ts', target: 'browser', minifyWhitespace: true })
  return Object.fromEntries(Object.entries(sources).map(([name, source]) => [name, asset('text/javascript; charset=utf-8', transpiler.transformSync(source))]))
}

function send(request: Request, file: Asset, headers: Record<string, string> = {}): Response {
  const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')
  return new Response(gzip ? file.gzipped : file.body, {
    headers: { 'content-type': file.type, vary: 'accept-encoding', ...(gzip ? { 'content-encoding': 'gzip' } : {}), ...headers },
  })
}

export function dashboardPages({ store }: AdminContext) {
  const assets: Record<string, Asset> = {
    'style.css': asset('text/css; charset=utf-8', css),
    ...typescriptAssets({ 'api.ts': apiSource as string, 'app.ts': appSource as string, 'dom.ts': domSource as string, 'pages.ts': pagesSource as string }),
  }
  // Bun's types take every .html import for a bundle; with type 'text' it is the file's text.
  const shell = asset('text/html; charset=utf-8', htmlText as unknown as string)
  const signedIn = (request: Request) => {
    const token = cookieValue(request, SESSION_COOKIE)
    return token !== undefined && store.adminSessions.use(token) !== undefined
  }
  const redirect = (to: string) => new Response(null, { status: 303, headers: { location: to } })
  const page = (request: Request) => send(request, shell, PAGE_HEADERS)
  return new Elysia()
    .get('/', () => redirect(`${DASHBOARD_PATH}/`))
    // Also answers /dashboard (paths match with or without the last slash).
    .get(`${DASHBOARD_PATH}/`, ({ request }) => (signedIn(request) ? page(request) : redirect(`${DASHBOARD_PATH}/login`)))
    .get(`${DASHBOARD_PATH}/login`, ({ request }) => (signedIn(request) ? redirect(`${DASHBOARD_PATH}/`) : page(request)))
    .get(`${DASHBOARD_PATH}/setup`, ({ request }) => page(request))
    .get(`${DASHBOARD_PATH}/assets/:name`, ({ request, params }) => {
      const file = Object.hasOwn(assets, params.name) ? assets[params.name] : undefined
      if (!file) return new Response('Not found', { status: 404 })
      return send(request, file)
    })
}
