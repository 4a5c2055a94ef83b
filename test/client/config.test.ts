// Configuration: options, then the environment, then defaults; anything wrong names the setting.
import assert from 'node:assert/strict'
import { afterEach, describe, test } from 'node:test'
import { ConfigurationError, PrintHubClient, PrintHubError } from '../../src/client/index.ts'
import { resolveClientConfig } from '../../src/client/config.ts'
import { faultServer, json } from './support.ts'

const KEY = `phk_${'b'.repeat(43)}`
const VARIABLES = [
  'PRINTHUB_BASE_URL',
  'PRINTHUB_API_KEY',
  'PRINTHUB_PROJECT_ID',
  'PRINTHUB_TIMEOUT_MS',
  'PRINTHUB_MAX_RETRIES',
]

afterEach(() => {
  for (const name of VARIABLES) delete process.env[name]
})

function configurationError(make: () => unknown): ConfigurationError {
  try {
    make()
  } catch (error) {
    assert.ok(error instanceof ConfigurationError, String(error))
    assert.ok(error instanceof PrintHubError)
    return error
  }
  return assert.fail('expected a ConfigurationError')
}

describe('client configuration', () => {
  test('defaults', () => {
    const config = resolveClientConfig({ baseUrl: 'http://hub.local:8080/' })
    assert.deepEqual(
      {
        baseUrl: config.baseUrl,
        timeoutMs: config.timeoutMs,
        maxRetries: config.maxRetries,
        base: config.retryBaseDelayMs,
        max: config.retryMaxDelayMs,
        apiKey: config.apiKey,
        projectId: config.projectId,
      },
      {
        baseUrl: 'http://hub.local:8080',
        timeoutMs: 30_000,
        maxRetries: 2,
        base: 250,
        max: 5_000,
        apiKey: undefined,
        projectId: undefined,
      },
    )
  })

  test('the environment fills what the options leave out; options win', () => {
    Object.assign(process.env, {
      PRINTHUB_BASE_URL: 'https://hub.example',
      PRINTHUB_API_KEY: KEY,
      PRINTHUB_PROJECT_ID: 'prj_env',
      PRINTHUB_TIMEOUT_MS: '1500',
      PRINTHUB_MAX_RETRIES: '7',
    })
    const fromEnv = resolveClientConfig()
    assert.deepEqual(
      [fromEnv.baseUrl, fromEnv.apiKey, fromEnv.projectId, fromEnv.timeoutMs, fromEnv.maxRetries],
      ['https://hub.example', KEY, 'prj_env', 1_500, 7],
    )
    const fromOptions = resolveClientConfig({
      baseUrl: 'http://other:1',
      projectId: 'prj_opt',
      timeoutMs: 10,
      maxRetries: 0,
    })
    assert.deepEqual(
      [fromOptions.baseUrl, fromOptions.projectId, fromOptions.timeoutMs, fromOptions.maxRetries],
      ['http://other:1', 'prj_opt', 10, 0],
    )
  })

  test('a missing base URL', () => {
    assert.equal(configurationError(() => new PrintHubClient()).setting, 'baseUrl')
  })

  const invalid: [string, () => unknown, string][] = [
    ['a relative base URL', () => new PrintHubClient({ baseUrl: '/hub' }), 'baseUrl'],
    ['a base URL of another scheme', () => new PrintHubClient({ baseUrl: 'ftp://hub' }), 'baseUrl'],
    ['credentials in the base URL', () => new PrintHubClient({ baseUrl: 'http://user:pw@hub' }), 'baseUrl'],
    ['a query in the base URL', () => new PrintHubClient({ baseUrl: 'http://hub/?x=1' }), 'baseUrl'],
    ['a malformed API key', () => new PrintHubClient({ baseUrl: 'http://hub', apiKey: 'sk_live_123' }), 'apiKey'],
    ['a bad project ID', () => new PrintHubClient({ baseUrl: 'http://hub', projectId: 'prj/../x' }), 'projectId'],
    ['timeoutMs 0', () => new PrintHubClient({ baseUrl: 'http://hub', timeoutMs: 0 }), 'timeoutMs'],
    ['timeoutMs over a day', () => new PrintHubClient({ baseUrl: 'http://hub', timeoutMs: 86_400_001 }), 'timeoutMs'],
    ['a fractional timeout', () => new PrintHubClient({ baseUrl: 'http://hub', timeoutMs: 1.5 }), 'timeoutMs'],
    ['maxRetries 11', () => new PrintHubClient({ baseUrl: 'http://hub', maxRetries: 11 }), 'maxRetries'],
    ['maxRetries -1', () => new PrintHubClient({ baseUrl: 'http://hub', maxRetries: -1 }), 'maxRetries'],
    [
      'retryBaseDelayMs over 60,000',
      () => new PrintHubClient({ baseUrl: 'http://hub', retryBaseDelayMs: 60_001 }),
      'retryBaseDelayMs',
    ],
    [
      'retryMaxDelayMs below the base',
      () => new PrintHubClient({ baseUrl: 'http://hub', retryBaseDelayMs: 1_000, retryMaxDelayMs: 999 }),
      'retryMaxDelayMs',
    ],
    [
      'retryMaxDelayMs over 120,000',
      () => new PrintHubClient({ baseUrl: 'http://hub', retryMaxDelayMs: 120_001 }),
      'retryMaxDelayMs',
    ],
    ['retry: true', () => new PrintHubClient({ baseUrl: 'http://hub', retry: true as unknown as false }), 'retry'],
    [
      'a fetch that is not a function',
      () => new PrintHubClient({ baseUrl: 'http://hub', fetch: 'no' as unknown as typeof fetch }),
      'fetch',
    ],
  ]
  for (const [name, make, setting] of invalid) {
    test(`${name} names ${setting}`, () => {
      const error = configurationError(make)
      assert.equal(error.setting, setting)
      assert.ok(error.message.startsWith(`${setting} `))
    })
  }

  test('bad environment values name the variable, and never repeat a key', () => {
    process.env.PRINTHUB_BASE_URL = 'http://hub'
    for (const [name, value] of [
      ['PRINTHUB_TIMEOUT_MS', '30s'],
      ['PRINTHUB_MAX_RETRIES', '99'],
      ['PRINTHUB_API_KEY', 'phk_short'],
      ['PRINTHUB_PROJECT_ID', 'a b'],
    ] as const) {
      process.env[name] = value
      const error = configurationError(() => new PrintHubClient())
      assert.equal(error.setting, name)
      assert.ok(!error.message.includes(value) || name !== 'PRINTHUB_API_KEY')
      delete process.env[name]
    }
  })

  test('a retryBaseDelayMs above 5,000 raises the default maximum to it', () => {
    assert.equal(resolveClientConfig({ baseUrl: 'http://hub', retryBaseDelayMs: 8_000 }).retryMaxDelayMs, 8_000)
  })

  test('job routes without an API key or project fail before any request', async () => {
    const server = await faultServer([json(200, { jobs: [], keyPrefix: 'x' })])
    const noKey = new PrintHubClient({ baseUrl: server.url, projectId: 'prj_1' })
    const noProject = new PrintHubClient({ baseUrl: server.url, apiKey: KEY })
    await assert.rejects(
      noKey.jobs.list(),
      (error: unknown) => error instanceof ConfigurationError && error.setting === 'apiKey',
    )
    await assert.rejects(
      noProject.jobs.list(),
      (error: unknown) => error instanceof ConfigurationError && error.setting === 'projectId',
    )
    assert.equal(server.requests.length, 0)
    await server.close()
  })

  test('a project view leaves the default project alone', async () => {
    const server = await faultServer([
      json(200, { jobs: [], keyPrefix: 'phk_bbbbbbbb' }),
      json(200, { jobs: [], keyPrefix: 'phk_bbbbbbbb' }),
    ])
    const client = new PrintHubClient({ baseUrl: server.url, apiKey: KEY, projectId: 'prj_default' })
    const bar = client.project('prj_bar')
    await bar.jobs.list()
    await client.jobs.list()
    assert.deepEqual(
      server.requests.map((r) => r.url),
      ['/v1/projects/prj_bar/jobs', '/v1/projects/prj_default/jobs'],
    )
    assert.deepEqual(JSON.parse(JSON.stringify(client)), { baseUrl: server.url, projectId: 'prj_default' })
    assert.throws(
      () => client.project(''),
      (error: unknown) => error instanceof ConfigurationError && error.setting === 'projectId',
    )
    await server.close()
  })

  test('the API key never shows when a client is printed', async () => {
    const client = new PrintHubClient({ baseUrl: 'http://hub', apiKey: KEY, projectId: 'prj_1' })
    const { inspect } = await import('node:util')
    assert.ok(!inspect(client, { depth: 10, showHidden: true }).includes(KEY))
    assert.ok(!JSON.stringify(client).includes(KEY))
  })
})
