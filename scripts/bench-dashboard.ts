// The dashboard part of `bun run bench`: every page loaded cold (a new browser profile, nothing
// cached) by Debian's Chromium as a phone (360 x 740, the CPU slowed fourfold as a mid-range
// phone's is against this machine's, the LAN's network as it is), in English and in German: the
// bytes the page transferred, its first contentful paint, and when the page itself was drawn (its
// heading on the screen, after the scripts ran and the API answered). The hub is its own process
// with a few printers and jobs, signed in as its owner.
import { chromium } from 'playwright-core'
import { THE_MACHINE } from '../src/services/actor.ts'
import { HubServices } from '../src/services/hub-services.ts'
import { Store } from '../src/store/store.ts'
import type { SectionResult } from './bench.ts'
import { cli, initDataDir, newDataDir, removeDataDir, round, startHub } from './bench-hub.ts'

const CHROMIUM = process.env.PRINTHUB_CHROMIUM ?? '/usr/bin/chromium'
const PAGES = [
  'overview',
  'printers',
  'destinations',
  'jobs',
  'projects',
  'webhooks',
  'agents',
  'settings',
  'users',
  'audit',
]
const CPU_SLOWDOWN = 4
/** The dashboard's budget for a page's first load (the browser tests hold it too). */
const BYTES_TARGET = 100_000
/** Something on the screen within a second of asking, on a phone. */
const FIRST_PAINT_TARGET_MS = 1_000

interface PageFigures {
  page: string
  language: string
  bytes: number
  firstPaintMs: number
  drawnMs: number
}

export async function dashboardSection(): Promise<SectionResult> {
  console.log(
    `dashboard: every page loaded cold on a phone profile (360 x 740, CPU ` +
      `${CPU_SLOWDOWN}x slower), in English and German...`,
  )
  const dir = newDataDir()
  const project = await initDataDir(dir)
  for (const id of ['kitchen', 'bar', 'terrace'])
    await cli(['printers', 'add', '--project', project.projectId, '--id', id, '--connection', 'virtual', '--data', dir])
  const store = Store.open({ dataDir: dir, create: false, maxOpenJobsPerProject: 10_000 })
  try {
    const added = await new HubServices(store).accounts.add(THE_MACHINE, {
      name: 'owner',
      role: 'owner',
      password: 'a bench password',
    })
    if (added.kind !== 'added') throw new Error(`the owner could not be made: ${added.kind}`)
  } finally {
    store.close()
  }
  const hub = await startHub(dir)
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  })
  try {
    for (let i = 0; i < 20; i++) {
      await fetch(`${hub.url}/v1/projects/${project.projectId}/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          printerId: ['kitchen', 'bar', 'terrace'][i % 3],
          idempotencyKey: `bench-${i}`,
          metadata: { order: String(1000 + i) },
          document: { width: 80, sections: [{ type: 'text', value: `Order ${1000 + i}` }, { type: 'cut' }] },
        }),
      })
    }
    const figures: PageFigures[] = []
    for (const [locale, language] of [
      ['en-US', 'en'],
      ['de-DE', 'de'],
    ] as const) {
      const signIn = await browser.newContext({ baseURL: hub.url, locale })
      const answer = await signIn.request.post('/admin/v1/login', {
        data: { name: 'owner', password: 'a bench password' },
      })
      if (answer.status() !== 200) throw new Error(`signing in answered ${answer.status()}`)
      const storageState = await signIn.storageState()
      await signIn.close()
      for (const page of PAGES) {
        // Cold: a new profile for each page, nothing cached.
        const context = await browser.newContext({
          viewport: { width: 360, height: 740 },
          deviceScaleFactor: 2,
          isMobile: true,
          hasTouch: true,
          locale,
          baseURL: hub.url,
          storageState,
        })
        try {
          const view = await context.newPage()
          const cdp = await context.newCDPSession(view)
          await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN })
          await view.goto(`/dashboard/#/${page}`)
          await view.locator('main h1').waitFor()
          const drawnMs = await view.evaluate(() => performance.now())
          await view.waitForLoadState('networkidle').catch(() => undefined)
          const measured = await view.evaluate(() => ({
            bytes: (performance.getEntriesByType('navigation') as PerformanceResourceTiming[])
              .concat(performance.getEntriesByType('resource') as PerformanceResourceTiming[])
              .reduce((sum, entry) => sum + entry.transferSize, 0),
            firstPaintMs: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
          }))
          figures.push({
            page,
            language,
            bytes: measured.bytes,
            firstPaintMs: round(measured.firstPaintMs, 0),
            drawnMs: round(drawnMs, 0),
          })
        } finally {
          await context.close()
        }
      }
    }
    const most = (key: 'bytes' | 'firstPaintMs' | 'drawnMs') => Math.max(...figures.map((f) => f[key]))
    return {
      report: [
        `dashboard (each page cold, 360 x 740, CPU ${CPU_SLOWDOWN}x slower; bytes ` +
          `transferred / first contentful paint / page drawn)`,
        ...figures.map(
          (f) =>
            `  ${`${f.page} (${f.language})`.padEnd(20)} ` +
            `${(f.bytes / 1024).toFixed(1).padStart(6)} KB   ` +
            `${String(f.firstPaintMs).padStart(5)} ms   ` +
            `${String(f.drawnMs).padStart(5)} ms`,
        ),
      ],
      checks: [
        {
          name: 'dashboard page weight, most',
          value: round(most('bytes') / 1024, 1),
          unit: ' KB',
          target: `< ${BYTES_TARGET / 1000} KB`,
          pass: most('bytes') < BYTES_TARGET,
        },
        {
          name: 'dashboard first paint, phone, slowest',
          value: most('firstPaintMs'),
          unit: ' ms',
          target: `< ${FIRST_PAINT_TARGET_MS} ms`,
          pass: most('firstPaintMs') < FIRST_PAINT_TARGET_MS,
        },
      ],
      results: { cpuSlowdown: CPU_SLOWDOWN, pages: figures },
    }
  } finally {
    await browser.close()
    await hub.stop()
    removeDataDir(dir)
  }
}
