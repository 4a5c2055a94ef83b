// The dashboard's browser modules as the hub serves them: every .ts file under
// src/dashboard/browser/ is served at its path there, each runtime import of one resolves to another
// served module, unknown paths answer 404, and the HTML shell carries the rules the browser code
// shares with the hub (from src/protocol/), which Chromium reads without any policy blocking it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { BROWSER_MODULES } from '../../src/dashboard/assets.ts'
import { API_KEY_SCOPES } from '../../src/protocol/api-key.ts'
import { en } from '../../src/protocol/messages/en.ts'
import { ADMIN_API_PREFIX, DASHBOARD_PATH } from '../../src/protocol/admin-api.ts'
import { JOB_STATES } from '../../src/protocol/job.ts'
import { launchChromium } from '../support/browser.ts'
import { ROOT } from '../support/cli.ts'
import { startTestHub, type TestHub } from '../support/hub.ts'

const BROWSER_DIR = join(ROOT, 'src/dashboard/browser')
const ASSETS = `${DASHBOARD_PATH}/assets/`

let hub: TestHub

beforeAll(async () => {
  hub = await startTestHub()
})

afterAll(async () => {
  await hub?.stop()
})

/** The served module's runtime imports (type-only imports are gone once transpiled). */
async function servedImports(path: string): Promise<string[]> {
  const response = await fetch(hub.url + ASSETS + path, { headers: { 'accept-encoding': 'gzip' } })
  expect({
    path,
    status: response.status,
    type: response.headers.get('content-type'),
    vary: response.headers.get('vary'),
  }).toEqual({ path, status: 200, type: 'text/javascript; charset=utf-8', vary: 'accept-encoding' })
  expect(response.headers.get('content-encoding')).toBe('gzip')
  return new Bun.Transpiler({ loader: 'js' }).scanImports(await response.text()).map((i) => i.path)
}

/** Sends `path` exactly as written (fetch would tidy `..` and `%2e` away first). */
function rawGet(path: string): Promise<string> {
  const { hostname, port, host } = new URL(hub.url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.end(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
    )
    let answer = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => (answer += chunk))
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
  })
}

async function shell(): Promise<string> {
  const response = await fetch(`${hub.url}${DASHBOARD_PATH}/login`)
  expect(response.status).toBe(200)
  return response.text()
}

describe('dashboard assets', () => {
  test('every browser module is served under its path in src/dashboard/browser/, from that file', () => {
    const files = [...new Bun.Glob('**/*.ts').scanSync(BROWSER_DIR)].filter((f) => !f.endsWith('.d.ts')).sort()
    expect(Object.keys(BROWSER_MODULES).sort()).toEqual(files)
    for (const file of files)
      expect({ file, same: BROWSER_MODULES[file] === readFileSync(join(BROWSER_DIR, file), 'utf8') }).toEqual({
        file,
        same: true,
      })
  })

  test(
    "each module's runtime imports are relative and resolve to served " +
      "modules; all are reached from the shell's script",
    async () => {
      const entry = /<script type="module" src="([^"]+)"><\/script>/.exec(await shell())?.[1]
      expect(entry).toStartWith(ASSETS)
      const reached = new Set<string>()
      const waiting = [entry!.slice(ASSETS.length)]
      while (waiting.length > 0) {
        const path = waiting.pop()!
        if (reached.has(path)) continue
        reached.add(path)
        for (const specifier of await servedImports(path)) {
          // A bare or absolute specifier would name something the hub does not serve (src/protocol/, a package).
          expect({ path, specifier, relative: /^\.\.?\//.test(specifier) }).toEqual({ path, specifier, relative: true })
          const resolved = new URL(specifier, hub.url + ASSETS + path).pathname
          expect({
            path,
            specifier,
            resolved,
            served: resolved.startsWith(ASSETS) && Object.hasOwn(BROWSER_MODULES, resolved.slice(ASSETS.length)),
          }).toEqual({ path, specifier, resolved, served: true })
          waiting.push(resolved.slice(ASSETS.length))
        }
      }
      expect([...reached].sort()).toEqual(Object.keys(BROWSER_MODULES).sort())
    },
  )

  test(
    "the shell carries the protocol's paths, the job states, which can be " +
      'cancelled and the API key scopes as JSON, and names its assets under the ' +
      "dashboard's path",
    async () => {
      const html = await shell()
      const json = /<script type="application\/json" id="printhub-config">([^<]*)<\/script>/.exec(html)?.[1]
      expect(json).toBeString()
      // Cancellable: waiting, or with an agent that can still be asked to stop it; not at the printer.
      // The words of the page's language (English for a browser that asks for none), and the languages to choose from.
      const { language, languages, messages, ...rules } = JSON.parse(json!)
      expect([language, languages, messages]).toEqual(['en', { en: 'English', de: 'Deutsch' }, en])
      expect(rules).toEqual({
        api: ADMIN_API_PREFIX,
        dashboard: DASHBOARD_PATH,
        jobStates: [...JOB_STATES],
        cancellableStates: ['PENDING', 'DISPATCHING', 'DELIVERED'],
        apiKeyScopes: [...API_KEY_SCOPES],
        roles: ['owner', 'technician', 'staff'],
        hubLanguage: 'en',
        auditOnTheMachine: 'this machine',
        inputPatterns: { identifier: '[A-Za-z0-9][A-Za-z0-9._:\\-]{0,127}', virtualName: '[A-Za-z0-9._\\-]{1,64}' },
      })
      expect(html).not.toContain('{{')
      expect(html).toContain(`<link rel="stylesheet" href="${ASSETS}style.css">`)
      expect((await fetch(`${hub.url}${ASSETS}style.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8')
    },
  )

  test('an unknown asset path answers 404; no path leads outside the served modules', async () => {
    for (const path of [
      'nope.ts',
      'pages/nope.ts',
      'pages',
      'pages/',
      'index.html',
      'assets.d.ts',
      'pages.ts',
      '__proto__',
      'constructor',
      'toString',
      'pages/../../routes.ts',
    ]) {
      const response = await fetch(hub.url + ASSETS + path)
      expect({ path, status: response.status }).toEqual({ path, status: 404 })
    }
    // Sent as written, a served path answers; so the paths below reach the hub as they are.
    expect((await rawGet(`${ASSETS}pages/jobs.ts`)).split(' ')[1]).toBe('200')
    for (const path of [
      '../routes.ts',
      '..%2Froutes.ts',
      '%2e%2e/%2e%2e/protocol/job.ts',
      'pages/..%2F..%2Froutes.ts',
      '..%2F..%2F..%2Fpackage.json',
      '%2Fetc%2Fpasswd',
      '/etc/passwd',
    ]) {
      const answer = await rawGet(ASSETS + path)
      expect({ path, status: answer.split(' ')[1] }).toEqual({ path, status: '404' })
      expect(answer).not.toContain('import')
      expect(answer).not.toContain('"name"')
    }
  })
})

describe('dashboard assets in Chromium', () => {
  test('the shell and every module load with nothing blocked, and the pages read the configuration', async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.newPage({ baseURL: hub.url })
      const problems: string[] = []
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
      page.on('console', (message) => void (message.type() === 'error' && problems.push(`console: ${message.text()}`)))
      page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`))
      page.on(
        'response',
        (response) =>
          void (
            response.url().includes(ASSETS) &&
            response.status() !== 200 &&
            problems.push(`${response.status()}: ${response.url()}`)
          ),
      )
      await page.addInitScript(() => {
        const seen: string[] = []
        ;(window as unknown as { violations: string[] }).violations = seen
        document.addEventListener('securitypolicyviolation', (event) =>
          seen.push(`${event.violatedDirective} ${event.blockedURI}`),
        )
      })
      const loaded = new Set<string>()
      page.on(
        'response',
        (response) =>
          void (response.url().includes(ASSETS) && loaded.add(new URL(response.url()).pathname.slice(ASSETS.length))),
      )
      await page.goto(`${DASHBOARD_PATH}/setup#${hub.hub.setupToken}`)
      await page.getByLabel('New password').fill('assets-test-password')
      await page.getByLabel('Repeat it').fill('assets-test-password')
      await page.getByRole('button', { name: 'Set password and sign in' }).click()
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      expect(new URL(page.url()).pathname).toBe(`${DASHBOARD_PATH}/`)
      for (const hash of ['printers', 'jobs', 'projects', 'agents', 'settings']) {
        await page.goto(`${DASHBOARD_PATH}/#/${hash}`)
        await page.locator('main h1').waitFor()
        await page.waitForLoadState('networkidle').catch(() => undefined)
      }
      // The job state filter lists the protocol's states, in its order, as people say them.
      await page.goto(`${DASHBOARD_PATH}/#/jobs`)
      await page.getByLabel('State').waitFor()
      await expect(
        page
          .locator('select[name="state"] option')
          .evaluateAll((all) => all.map((o) => (o as HTMLOptionElement).value)),
      ).resolves.toEqual(['', ...JOB_STATES])
      await expect(page.locator('select[name="state"] option').allTextContents()).resolves.toEqual([
        'All states',
        ...JOB_STATES.map((state) => en.jobStates[state].word),
      ])
      expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([])
      expect(problems).toEqual([])
      expect([...loaded].sort()).toEqual([...Object.keys(BROWSER_MODULES), 'style.css'].sort())
    } finally {
      await browser.close()
    }
  })
})
