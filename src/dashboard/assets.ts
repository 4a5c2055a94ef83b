// The dashboard's assets: the HTML shell, its style and the browser modules, embedded in the
// program as text; turned into what is sent (JavaScript from TypeScript, each page's shell in each
// language, gzipped copies) when the dashboard is first asked for. Loaded by routes.ts then, so a
// hub whose dashboard nobody opens neither reads nor holds any of it.
import { ADMIN_API_PREFIX, ADMIN_ROLES, AUDIT_ON_THE_MACHINE, DASHBOARD_PATH } from '../protocol/admin-api.ts'
import { API_KEY_SCOPES } from '../protocol/api-key.ts'
import { JOB_TRANSITIONS } from '../domain/job-transitions.ts'
import { JOB_STATES } from '../protocol/job.ts'
import { HUB_LANGUAGE, type Language, LANGUAGE_CODES, LANGUAGES } from '../protocol/messages/index.ts'
import { htmlPattern, IDENTIFIER_PATTERN } from '../protocol/values.ts'
import { VIRTUAL_NAME_PATTERN } from '../domain/connection-uri.ts'
import type { DashboardConfig } from './browser/config.ts'
import htmlText from './browser/index.html' with { type: 'text' }
import css from './browser/style.css' with { type: 'text' }
// The browser modules, as text; one by one, as the compiled executable embeds only what is imported.
// TypeScript would type each as the module itself, hence the expected error on each.
// @ts-expect-error: a text import.
import apiSource from './browser/api.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import appSource from './browser/app.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import configSource from './browser/config.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import domSource from './browser/dom.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import pagesSource from './browser/pages/index.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import pageSource from './browser/pages/page.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import recordsSource from './browser/pages/records.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import overviewSource from './browser/pages/overview.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import printersSource from './browser/pages/printers.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import pollingSource from './browser/pages/polling.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import jobsSource from './browser/pages/jobs.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import jobDetailSource from './browser/pages/job-detail.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import fanOutDetailSource from './browser/pages/fan-out-detail.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import jobWordsSource from './browser/pages/job-words.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import projectsSource from './browser/pages/projects.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import agentsSource from './browser/pages/agents.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import settingsSource from './browser/pages/settings.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import webhooksSource from './browser/pages/webhooks.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import destinationsSource from './browser/pages/destinations.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import usersSource from './browser/pages/users.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import auditSource from './browser/pages/audit.ts' with { type: 'text' }
// @ts-expect-error: a text import.
import meSource from './browser/pages/me.ts' with { type: 'text' }

/**
 * Every browser module by its path under browser/, which is also its address under
 * `/dashboard/assets/`: the modules import one another by relative paths, and the browser resolves
 * those against the importing module's address. A new module is its import above and one line here.
 */
export const BROWSER_MODULES: Readonly<Record<string, string>> = {
  'api.ts': apiSource,
  'app.ts': appSource,
  'config.ts': configSource,
  'dom.ts': domSource,
  'pages/index.ts': pagesSource,
  'pages/page.ts': pageSource,
  'pages/records.ts': recordsSource,
  'pages/overview.ts': overviewSource,
  'pages/printers.ts': printersSource,
  'pages/polling.ts': pollingSource,
  'pages/jobs.ts': jobsSource,
  'pages/job-detail.ts': jobDetailSource,
  'pages/fan-out-detail.ts': fanOutDetailSource,
  'pages/job-words.ts': jobWordsSource,
  'pages/projects.ts': projectsSource,
  'pages/agents.ts': agentsSource,
  'pages/webhooks.ts': webhooksSource,
  'pages/destinations.ts': destinationsSource,
  'pages/settings.ts': settingsSource,
  'pages/users.ts': usersSource,
  'pages/audit.ts': auditSource,
  'pages/me.ts': meSource,
}

export interface Asset {
  type: string
  body: Uint8Array<ArrayBuffer>
  gzipped: Uint8Array<ArrayBuffer>
}

function asset(type: string, text: string): Asset {
  const body = new TextEncoder().encode(text)
  return { type, body, gzipped: Bun.gzipSync(body, { level: 9 }) }
}

function typescriptAssets(sources: Readonly<Record<string, string>>): [string, Asset][] {
  const transpiler = new Bun.Transpiler({ loader: 'ts', target: 'browser', minifyWhitespace: true })
  return Object.entries(sources).map(([path, source]) => [
    path,
    asset('text/javascript; charset=utf-8', transpiler.transformSync(source)),
  ])
}

/**
 * What the browser code is told by the hub (browser/config.ts reads it): the rules it shares with the hub; with the
 * language and its words, per page.
 */
export const DASHBOARD_CONFIG: Omit<DashboardConfig, 'language' | 'languages' | 'messages'> = {
  api: ADMIN_API_PREFIX,
  dashboard: DASHBOARD_PATH,
  jobStates: JOB_STATES,
  cancellableStates: [...JOB_TRANSITIONS.cancel.from, ...JOB_TRANSITIONS.requestCancel.from],
  apiKeyScopes: API_KEY_SCOPES,
  roles: ADMIN_ROLES,
  hubLanguage: HUB_LANGUAGE,
  auditOnTheMachine: AUDIT_ON_THE_MACHINE,
  inputPatterns: { identifier: htmlPattern(IDENTIFIER_PATTERN), virtualName: htmlPattern(VIRTUAL_NAME_PATTERN) },
}

/**
 * The HTML shell with its `{{name}}` slots filled: the dashboard's path, and the configuration as
 * JSON in a non-executed script element. There `<`, `>` and `&` are written as JSON escapes, so no
 * value can end the element or open a comment.
 */
function shellHtml(template: string, language: Language): string {
  const messages = LANGUAGES[language]
  const languages = Object.fromEntries(LANGUAGE_CODES.map((code) => [code, LANGUAGES[code].name]))
  const config: DashboardConfig = { ...DASHBOARD_CONFIG, language, languages, messages }
  const json = JSON.stringify(config).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
  // Every module asked for at once, not one import after another: a phone draws the page sooner.
  const preload = Object.keys(BROWSER_MODULES)
    .filter((path) => path !== 'app.ts')
    .map((path) => `<link rel="modulepreload" href="${DASHBOARD_PATH}/assets/${path}">`)
    .join('\n')
  const slots: Record<string, string> = {
    config: json,
    dashboard: DASHBOARD_PATH,
    lang: language,
    skip: Bun.escapeHTML(messages.frame.skip),
    preload,
  }
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (!Object.hasOwn(slots, name)) throw new Error(`The dashboard's index.html has an unknown slot {{${name}}}.`)
    return slots[name]!
  })
}

export interface Assets {
  /** Only these paths are served: a path is looked up, never read from the disk. */
  files: Map<string, Asset>
  /** The page, in each language (the words are in it: the first paint is in the reader's language). */
  shells: Map<Language, Asset>
}

export function buildAssets(): Assets {
  // Bun's types take every .html import for a bundle; with type 'text' it is the file's text.
  const template = htmlText as unknown as string
  return {
    files: new Map<string, Asset>([
      ['style.css', asset('text/css; charset=utf-8', css)],
      ...typescriptAssets(BROWSER_MODULES),
    ]),
    shells: new Map(
      LANGUAGE_CODES.map((language) => [language, asset('text/html; charset=utf-8', shellHtml(template, language))]),
    ),
  }
}
