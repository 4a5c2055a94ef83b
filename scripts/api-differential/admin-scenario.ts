// The API differential's requests to the admin API (docs/dashboard.md, src/admin/routes/): signing in through the
// setup link and with passwords, sessions and CSRF, admin tokens of each role (made with the CLI), then every list
// and detail and every change, with the refusals (no session, a project key, a role too low, no such thing).
import { type Answer, type Call, type Session, sessionOf } from './client.ts'
import { eventStreams, routes } from './public-scenario.ts'
import { type Context, settled } from './setup.ts'

const NONE = '00000000000000000000000000000000'

export async function adminScenario(context: Context): Promise<void> {
  const { http, side } = context
  const open = (method: string, sub: string, call: Omit<Call, 'method' | 'path'> = {}) =>
    http.call({ method, path: `/admin/v1${sub}`, ...call })

  // Before any account: whether one exists, refusals, the first owner through the setup link.
  await open('GET', '/login')
  await open('GET', '/overview')
  await open('POST', '/setup', { body: { token: 'not-the-setup-token', password: 'owner password one' } })
  await open('POST', '/setup', { body: { token: context.setupToken, password: 'short' } })
  const first = sessionOf(
    await open('POST', '/setup', {
      body: { token: context.setupToken, name: 'admin', password: 'owner password one' },
    }),
  )
  await open('POST', '/setup', { body: { token: context.setupToken, password: 'owner password one' } })

  // More accounts and admin tokens, on the machine.
  await side.cli(['users', 'add', 'olga', '--role', 'owner'], { stdin: 'owner password two\n' })
  await side.cli(['users', 'add', 'tech', '--role', 'technician'], { stdin: 'technician password\n' })
  await side.cli(['users', 'add', 'sam', '--role', 'staff'], { stdin: 'staff password one\n' })
  await side.cli(['users', 'add', 'x', '--role', 'staff'], { stdin: 'short\n' })
  const token = (await side.cli(['admin', 'create-token', '--user', 'olga', '--name', 'differential']))?.token ?? ''
  const tech = (await side.cli(['admin', 'create-token', '--user', 'tech', '--name', 'tech script']))?.token ?? ''
  const staff = (await side.cli(['admin', 'create-token', '--user', 'sam', '--name', 'staff script']))?.token ?? ''
  await side.cli(['users', 'list'])
  const admin = (method: string, sub: string, call: Omit<Call, 'method' | 'path'> = {}) =>
    open(method, sub, { bearer: token, ...call })

  // Signing in: refusals, then a second session of the first owner.
  await open('GET', '/login')
  await open('POST', '/login', { body: { name: 'admin', password: 'not the password' } })
  await open('POST', '/login', { body: { password: 'owner password one' } })
  await open('POST', '/login', { body: { name: 'nobody', password: 'owner password one' } })
  await open('POST', '/login', { body: { name: 'admin' } })
  await open('POST', '/login', { body: { name: 'admin', password: 'owner password one' }, headers: origin })
  const session = sessionOf(await open('POST', '/login', { body: { name: 'admin', password: 'owner password one' } }))
  await sessionRoutes(context, { session, first, token })

  // Who may: no credentials, a project key, a token not known, a role too low.
  await open('GET', '/printers')
  await open('GET', '/printers', { bearer: context.key })
  await open('GET', '/printers', { bearer: 'pha_notATokenOfThisHub000000000000000000000000' })
  await open('GET', '/settings', { bearer: staff })
  await open('GET', '/users', { bearer: tech })
  await open('POST', '/projects', { bearer: staff, body: { name: 'Not made' } })
  await open('GET', '/printers', { bearer: staff })

  await admin('GET', '/overview')
  await admin('GET', '/events', { read: 'first-event' })
  await printerRoutes(context, admin)
  await jobRoutes(context, admin)
  await accountRoutes(context, { admin, session, token })
  await admin('GET', '/openapi.json')
  await admin('GET', '/openapi.json', { bearer: staff })
  await open('GET', '/openapi.json')
  await admin('POST', '/logout', { bearer: undefined, session })
  await admin('GET', '/session', { bearer: undefined, session })
  await side.cli(['agents', 'list'])
  await side.cli(['users', 'list'])
  await eventStreams(context)
}

/** A request from a page of another site. */
const origin = { origin: 'http://elsewhere.example' }

async function sessionRoutes(context: Context, who: { session: Session; first: Session; token: string }) {
  const { http } = context
  const { session, first, token } = who
  const own = (method: string, sub: string, call: Omit<Call, 'method' | 'path'> = {}) =>
    http.call({ method, path: `/admin/v1${sub}`, session, ...call })
  await own('GET', '/session')
  await own('GET', '/session', { session: undefined, bearer: token })
  await own('PUT', '/session/language', { body: { language: 'de' }, csrf: false })
  await own('PUT', '/session/language', { body: { language: 'de' }, headers: origin })
  await own('PUT', '/session/language', { body: { language: 'de' } })
  await own('PUT', '/session/language', { body: { language: 'xx' } })
  await own('PUT', '/session/language', { body: { language: null } })
  const sessions = await own('GET', '/sessions')
  const other = (sessions.json?.sessions ?? []).find((s: { current: boolean }) => !s.current)?.id
  await own('POST', `/sessions/${other}/revoke`)
  await own('POST', `/sessions/${other}/revoke`)
  await own('GET', '/session', { session: first })
  await own('POST', '/sessions/revoke-others')
  await own('PUT', '/password', { body: { currentPassword: 'not it at all', newPassword: 'owner password three' } })
  await own('PUT', '/password', { body: { currentPassword: 'owner password one', newPassword: 'short' } })
  await own('PUT', '/password', { body: { currentPassword: 'owner password one', newPassword: 'owner password one' } })
  const made = await own('POST', '/tokens', { body: { name: 'from the dashboard' } })
  await own('POST', '/tokens', { body: { name: '' } })
  await own('GET', '/tokens')
  await own('GET', '/tokens', { session: undefined, bearer: token })
  await own('POST', `/tokens/${made.json?.token?.id}/revoke`)
  await own('POST', `/tokens/${made.json?.token?.id}/revoke`)
}

type Admin = (method: string, sub: string, call?: Omit<Call, 'method' | 'path'>) => Promise<Answer>

async function printerRoutes(context: Context, admin: Admin) {
  const { project, printers } = context
  await admin('GET', '/profiles')
  await admin('GET', '/printers/detect')
  await admin('GET', '/printers')
  await admin('GET', '/printers/polling')
  // A Star CloudPRNT printer polls once: seen, adopted, refused a second time, removed at once (a printer that stops
  // polling is taken for offline after a while: its state would depend on how long the run takes).
  const mac = '00:11:62:aa:00:42'
  await context.http.call({
    method: 'POST',
    path: '/cloudprnt',
    body: { status: '23 86 00 00 00 00 00 00 00 ', printerMAC: mac, statusCode: '200%20OK', printingInProgress: false },
  })
  await admin('GET', '/printers/polling')
  const star = await admin('POST', '/printers/adopt', { body: { printer: mac, projectId: project, id: 'star' } })
  await admin('POST', '/printers/adopt', { body: { printer: mac, projectId: project, id: 'star2' } })
  await admin('DELETE', `/printers/${star.json?.printer?.id}`)
  // One never seen: adopted all the same, and removed before it is taken for offline (which takes a while).
  const unseen = await admin('POST', '/printers/adopt', {
    body: { printer: '00:11:62:aa:00:99', projectId: project, id: 'star3' },
  })
  await admin('DELETE', `/printers/${unseen.json?.printer?.id}`)

  // A printer the hub drives: added, refused, changed, a test page, its history and receipt, removed.
  const add = (body: Record<string, unknown>) => admin('POST', '/printers', { body: { projectId: project, ...body } })
  const made = await add({ id: 'bar', connection: 'virtual://bar', name: 'Bar' })
  const bar: string = made.json?.printer?.id
  await add({ id: 'bar', connection: 'virtual://bar2' })
  await add({ id: 'ftp', connection: 'ftp://printer.example' })
  await add({ id: 'passwd', connection: 'file:///etc/passwd' })
  await add({ id: 'self', connection: `tcp://${new URL(context.side.url).host}` })
  await add({ id: 'nomodel', connection: 'virtual://x', profile: 'no-such-model' })
  await add({ id: 'bad id!', connection: 'virtual://x' })
  await admin('POST', '/printers', { body: { projectId: `prj_${NONE}`, id: 'x', connection: 'virtual://x' } })
  await add({ id: 'agents', agentId: `agt_${NONE}`, agentPrinterId: 'p1' })
  await admin('PATCH', `/printers/${bar}`, { body: { name: 'Counter', width: 58, profile: 'generic-58mm' } })
  await admin('PATCH', `/printers/${bar}`, { body: { profile: 'no-such-model' } })
  await admin('PATCH', `/printers/${bar}`, { body: { connection: 'virtual://bar?mode=ok' } })
  await admin('PATCH', `/printers/prn_${NONE}`, { body: { name: 'x' } })
  const test = await admin('POST', `/printers/${bar}/test`)
  await settled(context, test.json?.job?.id)
  await admin('POST', `/printers/prn_${NONE}/test`)
  await admin('GET', `/printers/${bar}/history`)
  await admin('GET', `/printers/${bar}/last-receipt.png`, { read: 'opaque' })
  await admin('GET', `/printers/${printers.second}/last-receipt.png`)
  await admin('GET', `/printers/${printers.off}/last-receipt.png`)
  await admin('GET', `/printers/${printers.off}/history`)
  await admin('GET', `/printers/prn_${NONE}/history`)
  await admin('GET', '/printers')
  await admin('DELETE', `/printers/${bar}`)
  await admin('DELETE', `/printers/${bar}`)
}

async function jobRoutes(context: Context, admin: Admin) {
  const { project, printers } = context
  const { api, submit } = routes(context)
  const jobs = await api('GET', '/jobs?metadata.order=1042')
  const printed: string = jobs.json?.jobs?.at(-1)?.id
  const parents = await api('GET', '/jobs?fanOut=true')
  const parent: string = parents.json?.jobs?.[0]?.id
  await admin('GET', '/jobs')
  await admin('GET', `/jobs?project=${project}&state=COMPLETED`)
  await admin('GET', '/jobs?q=104')
  await admin('GET', `/jobs?printer=${printers.demo}&state=COMPLETED`)
  await admin('GET', '/jobs?from=2000-01-01T00:00:00.000Z&to=2999-01-01T00:00:00.000Z')
  await admin('GET', `/jobs?before=${printed}`)
  await admin('GET', '/jobs?fanOut=true')
  await admin('GET', `/jobs?fanOut=true&printer=${printers.second}`)
  await admin('GET', '/jobs?state=NOPE')
  await admin('GET', '/jobs?fanOut=maybe')
  await admin('GET', '/jobs?colour=red')
  await admin('GET', `/jobs/${printed}`)
  const fanOut = await admin('GET', `/jobs/${parent}`)
  await admin('GET', `/jobs/${fanOut.json?.children?.[0]?.job?.id}`)
  await admin('GET', `/jobs/job_${NONE}`)
  await admin('GET', `/jobs/${printed}/preview.png`)
  await admin('GET', `/jobs/job_${NONE}/preview.png`)
  const held = await submit({ printerId: 'off', idempotencyKey: 'held-1' }, false)
  await admin('POST', `/jobs/${held}/cancel`)
  await admin('POST', `/jobs/${held}/cancel`)
  await admin('POST', `/jobs/${printed}/cancel`)
  await admin('POST', `/jobs/job_${NONE}/cancel`)
  const again = await admin('POST', `/jobs/${printed}/reprint`)
  await settled(context, again.json?.job?.id)
  await admin('GET', `/jobs/${again.json?.job?.id}`)
  await admin('GET', `/jobs/${printed}`)
  await admin('POST', `/jobs/job_${NONE}/reprint`)

  // Projects and their keys.
  await admin('GET', '/projects')
  const bar = await admin('POST', '/projects', { body: { name: 'Bar' } })
  const barId: string = bar.json?.project?.id
  await admin('POST', '/projects', { body: { name: '   ' } })
  await admin('POST', '/projects', { body: {} })
  await admin('GET', `/projects/${project}/keys`)
  const key = await admin('POST', `/projects/${barId}/keys`, { body: { name: 'till', scopes: ['jobs:read'] } })
  await admin('POST', `/projects/${barId}/keys`, { body: { scopes: ['jobs:everything'] } })
  await admin('POST', `/projects/prj_${NONE}/keys`, { body: { scopes: ['jobs:read'] } })
  await admin('GET', `/projects/${barId}/keys`)
  await admin('GET', `/projects/prj_${NONE}/keys`)
  await admin('POST', `/keys/${key.json?.key?.id}/revoke`)
  await admin('POST', `/keys/${key.json?.key?.id}/revoke`)
  await admin('POST', `/keys/apk_${NONE}/revoke`)
  await admin('GET', '/projects')

  // Destinations.
  await admin('GET', '/destinations')
  const destinations = `/projects/${project}/destinations`
  await admin('POST', destinations, { body: { name: 'bar-all', mode: 'all', printers: ['demo', 'second'] } })
  await admin('POST', destinations, { body: { name: 'bar-all', printers: ['demo'] } })
  await admin('POST', destinations, { body: { name: 'many', printers: Array.from({ length: 17 }, () => 'demo') } })
  await admin('POST', `/projects/prj_${NONE}/destinations`, { body: { name: 'x', printers: ['demo'] } })
  await admin('GET', '/destinations')
  await admin('DELETE', `${destinations}/bar-all`)
  await admin('DELETE', `${destinations}/everywhere`)
  await admin('DELETE', `${destinations}/everywhere`)
}

async function accountRoutes(context: Context, who: { admin: Admin; session: Session; token: string }) {
  const { admin, session } = who
  const { printers } = context
  // Agents and pairing codes.
  const agents = await admin('GET', '/agents')
  const list: { id: string; name: string }[] = agents.json?.agents ?? []
  const builtin = list.find((agent) => agent.name === 'built-in')?.id
  const paired = list.find((agent) => agent.name === 'Differential agent')?.id
  await admin('POST', `/agents/agt_${NONE}/revoke`)
  await admin('POST', `/agents/${builtin}/revoke`)
  await admin('POST', `/agents/${paired}/revoke`)
  await admin('POST', `/agents/${paired}/revoke`)
  await admin('GET', '/agents')
  await admin('POST', '/pairing-codes', { body: {} })
  await admin('POST', '/pairing-codes', { body: { ttlSeconds: 1 } })
  await admin('POST', '/pairing-codes', { body: { printOn: `prn_${NONE}` } })
  const printedCode = await admin('POST', '/pairing-codes', { body: { ttlSeconds: 600, printOn: printers.demo } })
  await settled(context, printedCode.json?.printed?.id)

  // Settings, a backup, webhooks (with a test event delivered).
  await admin('GET', '/settings')
  await admin('PUT', '/settings', { body: { retentionDays: 14, retryInitialMs: 2_000 } })
  await admin('PUT', '/settings', { body: { retentionDays: -1 } })
  await admin('PUT', '/settings', { body: { colour: 'red' } })
  await admin('PUT', '/settings', { body: [] })
  await admin('PUT', '/settings', { body: { serverName: 'Differential hub' } })
  await admin('GET', '/settings')
  await context.http.call({ path: '/.well-known/printservice' })
  await admin('GET', '/backup', { read: 'opaque' })
  const hooks = await admin('GET', '/webhooks')
  const hook: string = hooks.json?.webhooks?.[0]?.id
  const before = context.receiver.received.length
  await admin('POST', `/webhooks/${hook}/test`)
  const deadline = Date.now() + 20_000
  while (context.receiver.received.length === before && Date.now() < deadline) await Bun.sleep(50)
  context.side.record({ method: 'RECEIVED', path: '/hook', status: 0, ...context.receiver.last() })
  await context.http.until('/admin/v1/webhooks', who.token, (json) =>
    (json?.webhooks?.[0]?.deliveries ?? []).every((d: { deliveredAt?: unknown }) => d.deliveredAt),
  )
  await admin('GET', '/webhooks')
  await admin('POST', `/webhooks/${hook}/enable`)
  await admin('POST', `/webhooks/whk_${NONE}/test`)
  await admin('POST', `/webhooks/whk_${NONE}/enable`)
  await admin('DELETE', `/webhooks/${hook}`)
  await admin('DELETE', `/webhooks/${hook}`)
  await admin('GET', '/webhooks')

  // Accounts: made, refused, changed; the last owner who can sign in kept.
  await admin('GET', '/users')
  const kim = await admin('POST', '/users', { body: { name: 'kim', role: 'staff', password: 'staff password two' } })
  const kimId: string = kim.json?.user?.id
  await admin('POST', '/users', { body: { name: 'KIM', role: 'staff', password: 'staff password two' } })
  await admin('POST', '/users', { body: { name: 'lee', role: 'staff', password: 'short' } })
  await admin('POST', '/users', { body: { name: 'lee', role: 'boss', password: 'staff password two' } })
  await admin('PATCH', `/users/${kimId}`, { body: { role: 'technician' } })
  await admin('PATCH', `/users/${kimId}`, { body: { disabled: true } })
  await admin('PATCH', `/users/${kimId}`, { body: { disabled: false, password: 'staff password three' } })
  await admin('PATCH', `/users/${kimId}`, { body: { password: 'short' } })
  await admin('PATCH', `/users/usr_${NONE}`, { body: { role: 'staff' } })
  const users: { id: string; name: string }[] = (await admin('GET', '/users')).json?.users ?? []
  const olga = users.find((user) => user.name === 'olga')?.id
  const first = users.find((user) => user.name === 'admin')?.id
  const own = { bearer: undefined, session }
  await admin('PATCH', `/users/${olga}`, { ...own, body: { disabled: true } })
  await admin('PATCH', `/users/${first}`, { ...own, body: { role: 'staff' } })
  await admin('PATCH', `/users/${first}`, { ...own, body: { disabled: true } })
  await admin('GET', '/users', { ...own })
  await admin('PATCH', `/users/${olga}`, { ...own, body: { disabled: false } })

  // The audit log: a page, the next, all of it, as CSV.
  const page = await admin('GET', '/audit?limit=5')
  await admin('GET', `/audit?limit=5&cursor=${page.json?.nextCursor}`)
  await admin('GET', '/audit?limit=0')
  await admin('GET', '/audit')
  await admin('GET', '/audit.csv')
}
