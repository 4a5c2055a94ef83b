// The admin API's contract (src/protocol/admin/) and its OpenAPI document (GET /admin/v1/openapi.json)
// against a real hub: the document is valid OpenAPI 3.1 that Redocly's recommended rules find
// nothing in, served only to an account signed in; the contract names every admin route the hub
// registers and no other, each with the role the hub asks for; and a run through every route
// (as the dashboard uses them) gets answers that the document's schemas accept, for bodies its
// request schemas accept.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { lintFromString, loadConfig } from '@redocly/openapi-core'
import { Validator } from '@seriousme/openapi-schema-validator'
import Ajv2020 from 'ajv/dist/2020.js'
import { ADMIN_OPERATIONS } from '../../src/admin/contract.ts'
import { openApiPath } from '../../src/admin/openapi.ts'
import { ADMIN_API_PREFIX, ADMIN_ROLES, roleAllows } from '../../src/protocol/admin-api.ts'
import type { AdminOperation } from '../../src/protocol/admin/contract.ts'
import { adminToken } from '../support/fixtures.ts'
import { startTestHub, type TestHub } from '../support/hub.ts'
import { type AdminCall, adminRun } from '../support/admin-run.ts'

const ROOT = join(import.meta.dir, '..', '..')

let hub: TestHub
let source: string
let document: Record<string, any>
let owner: { cookie: string; csrf: string }
/** The first owner made through the setup link: the run's first call. */
let setup: AdminCall

beforeAll(async () => {
  hub = await startTestHub({ env: { PRINTHUB_STATUS_POLL_MS: '200' } })
  const body = { token: hub.hub.setupToken, name: 'olga', password: 'owner password one' }
  const answer = await hub.request('POST', `${ADMIN_API_PREFIX}/setup`, { key: null, body })
  expect(answer.status).toBe(200)
  const text = await answer.text()
  setup = { method: 'POST', path: '/setup', body, response: new Response(text, answer) }
  owner = {
    cookie: answer.headers.get('set-cookie')!.split(';')[0]!,
    csrf: (JSON.parse(text) as { csrfToken: string }).csrfToken,
  }
  const served = await hub.request('GET', `${ADMIN_API_PREFIX}/openapi.json`, {
    key: null,
    headers: { cookie: owner.cookie },
  })
  expect(served.status).toBe(200)
  source = await served.text()
  document = JSON.parse(source)
})
afterAll(() => hub.stop())

const JSON_TYPE = 'application/json'
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`

describe("the admin API's OpenAPI document", () => {
  test('is served to an account signed in, or its admin token, and to nobody else', async () => {
    expect((await hub.request('GET', `${ADMIN_API_PREFIX}/openapi.json`, { key: null })).status).toBe(401)
    // A project API key is never an admin's.
    expect((await hub.request('GET', `${ADMIN_API_PREFIX}/openapi.json`)).status).toBe(401)
    const staff = adminToken(hub.hub.store, 'staff')
    const read = await hub.request('GET', `${ADMIN_API_PREFIX}/openapi.json`, { key: staff })
    expect(read.status).toBe(200)
    expect(await read.text()).toBe(source)
  })

  test('is valid OpenAPI 3.1, with a stable camelCase operationId for each operation', async () => {
    const result = await new Validator().validate(document)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(document.openapi).toBe('3.1.0')
    const ids = ADMIN_OPERATIONS.map((operation) => operation.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]+$/)
  })

  test("Redocly's recommended rules find no error and no warning in it, as redocly.yaml configures them", async () => {
    const config = await loadConfig({ configPath: join(ROOT, 'redocly.yaml') })
    const problems = await lintFromString({ source, absoluteRef: `${hub.url}/admin/v1/openapi.json`, config })
    expect(problems.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`)).toEqual(
      [],
    )
  })
})

describe("the admin API's contract", () => {
  test('names every admin route the hub registers, with its method, and no other; so does the document', () => {
    const registered = hub.hub
      .routes()
      .filter((route) => route.path.startsWith(`${ADMIN_API_PREFIX}/`))
      .map((route) => key(route.method, route.path))
    const contract = ADMIN_OPERATIONS.map((operation) => key(operation.method, ADMIN_API_PREFIX + operation.path))
    expect([...new Set(registered)].sort()).toEqual([...contract].sort())
    const documented = Object.entries(document.paths as Record<string, object>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => key(method, path)),
    )
    expect(documented.sort()).toEqual(
      ADMIN_OPERATIONS.map((operation) => key(operation.method, openApiPath(operation.path))).sort(),
    )
  })

  test('each route asks for the role its contract names: a role below it is refused, that role is not', async () => {
    const tokens = Object.fromEntries(ADMIN_ROLES.map((role) => [role, adminToken(hub.hub.store, role)]))
    const answers: string[] = []
    for (const operation of ADMIN_OPERATIONS) {
      if (operation.role === null) continue
      for (const role of ADMIN_ROLES) {
        const allowed = roleAllows(role, operation.role)
        // These make a whole backup, or keep a stream open: asked only of roles they refuse.
        if (allowed && ['/backup', '/events'].includes(operation.path)) continue
        const answer = await hub.request(operation.method, ADMIN_API_PREFIX + operation.path.replace(/:\w+/g, 'x'), {
          key: tokens[role],
          body: operation.method === 'GET' ? undefined : {},
        })
        await answer.body?.cancel()
        answers.push(`${key(operation.method, operation.path)} as ${role}: ${answer.status === 403 ? 403 : 'not 403'}`)
      }
    }
    expect(answers).toEqual(
      ADMIN_OPERATIONS.flatMap((operation) =>
        operation.role === null
          ? []
          : ADMIN_ROLES.filter(
              (role) => !(roleAllows(role, operation.role!) && ['/backup', '/events'].includes(operation.path)),
            ).map(
              (role) =>
                `${key(operation.method, operation.path)} as ${role}: ` +
                `${roleAllows(role, operation.role!) ? 'not 403' : 403}`,
            ),
      ),
    )
  })

  test("a run through every route: each answer is one its operation names, of the document's schema", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    const checked = new Set<string>()
    const wrong: unknown[] = []
    const operationOf = (method: string, path: string): AdminOperation | undefined =>
      ADMIN_OPERATIONS.filter((operation) => operation.method === method)
        .sort((a, b) => a.path.split(':').length - b.path.split(':').length)
        .find((operation) => new RegExp(`^${operation.path.replace(/:\w+/g, '[^/]+')}$`).test(path))
    const check = async ({ method, path, body, response }: AdminCall) => {
      const operation = operationOf(method, path.split('?')[0]!)
      if (!operation) return void wrong.push({ method, path, problem: 'no operation' })
      const spec = document.paths[openApiPath(operation.path)][method.toLowerCase()]
      if (body !== undefined) {
        const accepts = ajv.compile(spec.requestBody.content['application/json'].schema)
        if (!accepts(body)) wrong.push({ method, path, body, problems: accepts.errors })
      }
      const answer = spec.responses[String(response.status)]
      if (!answer || answer.$ref) {
        return void wrong.push({ method, path, status: response.status, error: await response.text() })
      }
      checked.add(key(operation.method, operation.path))
      const [mediaType] = Object.keys(answer.content ?? {})
      if (mediaType === undefined) return void expect(await response.text()).toBe('')
      expect([method, path, response.headers.get('content-type')?.split(';')[0]]).toEqual([method, path, mediaType])
      if (mediaType === 'text/event-stream') {
        // Each change carries the overview, as GET /overview answers it.
        const data = /^data: (.*)$/m.exec(await response.text())?.[1]
        const overview = ajv.compile(
          document.paths[openApiPath('/overview')].get.responses['200'].content[JSON_TYPE].schema,
        )
        if (!overview(JSON.parse(data!))) wrong.push({ method, path, data, problems: overview.errors })
        return
      }
      if (mediaType !== JSON_TYPE) return void (await response.body?.cancel())
      const value = await response.json()
      const valid = ajv.compile(answer.content[mediaType].schema)
      if (!valid(value)) wrong.push({ method, path, value, problems: valid.errors })
    }
    await check(setup)
    await adminRun(hub, owner, check)
    expect(wrong).toEqual([])
    expect(
      ADMIN_OPERATIONS.map((operation) => key(operation.method, operation.path)).filter((k) => !checked.has(k)),
    ).toEqual([])
  }, 60_000)
})
