// Debian's Chromium driven by playwright-core: never a downloaded browser. Screenshots go to
// .ci/out/screenshots, kept as test artifacts.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'
import { ROOT } from './cli.ts'

export const CHROMIUM = process.env.PRINTHUB_CHROMIUM ?? '/usr/bin/chromium'
export const SCREENSHOTS = join(ROOT, '.ci', 'out', 'screenshots')

/** The widths the dashboard is checked at: a small phone, and a desktop. */
export const VIEWPORTS = { phone: { width: 360, height: 740 }, desktop: { width: 1280, height: 800 } } as const

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // Without the background-networking flags Chromium keeps trying hosts this machine cannot reach.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/** The screenshots the documentation shows, checked in; the layout tests compare each page with its own. */
export const DOC_SCREENSHOTS = join(ROOT, 'docs', 'screenshots')

/** A PNG file's width and height, from its header. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return { width: view.getUint32(16), height: view.getUint32(20) }
}

/** A full-page screenshot of `page` as `<name>-<viewport>.png`. */
export async function screenshot(page: Page, name: string, viewport: keyof typeof VIEWPORTS): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  const path = join(SCREENSHOTS, `${name}-${viewport}.png`)
  await page.screenshot({ path, fullPage: true })
  return path
}
