// The executable's yardstick in `bun run bench binary`: the least a program built on the runtime
// parts the hub must use can hold and take to start, with none of the hub's own logic. Compiled
// with the hub's own build flags, it opens a SQLite database as the hub does (WAL, synchronous FULL),
// takes an flock(2) through bun:ffi, makes and checks one Ed25519 signature with node:crypto, parses
// its arguments with node:util, and serves the hub's whole route table (FLOOR_ROUTES, defined at
// build time from the hub's own) with Elysia: one plugin per group of routes, a hook on each, and
// a WebSocket route. Every handler answers a small JSON object.
//   printhub-floor PORT DIRECTORY
import { Database } from 'bun:sqlite'
import { dlopen, FFIType } from 'bun:ffi'
import { createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto'
import { openSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Elysia } from 'elysia'
import { normalJitPolicy } from '../src/platform/jit.ts'

declare const FLOOR_ROUTES: { method: string; path: string }[]

const { positionals } = parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: {} })
const [port, dir] = positionals
if (!port || !dir) throw new Error('usage: printhub-floor PORT DIRECTORY')

const libc = dlopen('libc.so.6', { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } }).symbols
const LOCK_EX_NB = 2 | 4
if (libc.flock(openSync(join(dir, 'floor.lock'), 'w'), LOCK_EX_NB) !== 0) throw new Error('the lock is held')

const db = new Database(join(dir, 'floor.db'), { create: true, strict: true })
db.run('PRAGMA journal_mode = WAL')
db.run('PRAGMA synchronous = FULL')
db.run('CREATE TABLE IF NOT EXISTS jobs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
const insert = db.query<unknown, [string]>('INSERT INTO jobs (body) VALUES (?)')
insert.run('{}')

/** PKCS #8 for an Ed25519 private key, up to its 32-byte seed (RFC 8410), as the agent's key file holds it. */
const key = createPrivateKey({
  key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), randomBytes(32)]),
  format: 'der',
  type: 'pkcs8',
})
const challenge = randomBytes(32)
if (!verify(null, challenge, createPublicKey(key), sign(null, challenge, key))) throw new Error('Ed25519 failed')

// Routes grouped by their first two path segments, as the hub's routers group them.
const groups = new Map<string, { method: string; path: string }[]>()
for (const route of FLOOR_ROUTES) {
  const group = route.path.split('/').slice(0, 3).join('/')
  groups.set(group, [...(groups.get(group) ?? []), route])
}
// The normal JIT policy from the first request that is not GET /health, as the hub's (http/app.ts).
let beforeWork = true
const app = new Elysia({ normalize: false })
  .onError(() => ({ error: 'floor' }))
  .onRequest(({ request }) => {
    if (beforeWork && new URL(request.url).pathname !== '/health') {
      beforeWork = false
      normalJitPolicy()
    }
  })
for (const routes of groups.values()) {
  const plugin = new Elysia().onBeforeHandle(() => undefined)
  for (const { method, path } of routes) plugin.route(method, path, () => ({ ok: true, path }))
  app.use(plugin)
}
app.ws('/floor/ws', { message: (ws, message) => ws.send(message) })
app.listen({ hostname: '127.0.0.1', port: Number(port), reusePort: false })
// Stopped as the hub is, by SIGTERM, with a normal exit (which writes a bytecode order being recorded).
process.once('SIGTERM', () => process.exit(0))
