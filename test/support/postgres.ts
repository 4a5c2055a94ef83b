// A real PostgreSQL for the store's tests: Debian's server (installed by npm test's prerequisites), a cluster made
// with initdb in a temporary directory, started with pg_ctl on a free port of 127.0.0.1 only, with a password (SCRAM),
// and stopped and removed at the end. The server refuses to run as root, so as root (as CI runs) it runs as the
// `postgres` user Debian's package made; as anyone else, as that user.
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { postgresBinDir } from '../../scripts/test-prerequisites.ts'
import { freePort } from './ports.ts'

export interface TestPostgres {
  /** `postgres://printhub:PASSWORD@127.0.0.1:PORT/DATABASE` of a database of its own. */
  url: string
  port: number
  /** A new, empty database on the same server, and its URL. */
  database(name: string): Promise<string>
  /** The server's own programs' directory (psql is beside them). */
  bin: string
  /** Stops the server immediately, as a power cut or a crash would (`pg_ctl stop -m immediate`). */
  kill(): Promise<void>
  /** Starts it again on the same port and directory. */
  start(): Promise<void>
  /** Stops it and removes its directory. */
  stop(): Promise<void>
}

const USER = 'printhub'

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const entry = Bun.spawnSync(['id', '-u', 'postgres']).stdout.toString().trim()
  const group = Bun.spawnSync(['id', '-g', 'postgres']).stdout.toString().trim()
  if (!/^\d+$/.test(entry)) throw new Error('running as root, but there is no postgres user to run PostgreSQL as')
  return { uid: Number(entry), gid: Number(group) }
}

async function run(command: string[], as: { uid: number; gid: number } | undefined): Promise<string> {
  const argv = as ? ['runuser', '-u', 'postgres', '--', ...command] : command
  const child = Bun.spawn(argv, { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, LC_ALL: 'C.UTF-8' } })
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  if (code !== 0) throw new Error(`${command.join(' ')} exited ${code}: ${err.trim() || out.trim()}`)
  return out
}

/**
 * A PostgreSQL server of the test's own, started; `stop()` it at the end. `durable`: each commit flushed to the disk,
 * as a server in service does (the bench's); a test's server does not.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<TestPostgres> {
  const bin = postgresBinDir()
  if (!bin) throw new Error("PostgreSQL's server is not installed (npm test installs Debian's postgresql)")
  const as = postgresUser()
  const dir = mkdtempSync(join(tmpdir(), 'printhub-pg-'))
  const data = join(dir, 'data')
  const password = randomBytes(18).toString('base64url')
  const passwordFile = join(dir, 'password')
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 })
  if (as) {
    chownSync(dir, as.uid, as.gid)
    chownSync(passwordFile, as.uid, as.gid)
  }
  chmodSync(dir, 0o700)
  await run(
    [
      join(bin, 'initdb'),
      '--pgdata',
      data,
      '--username',
      USER,
      '--pwfile',
      passwordFile,
      '--auth',
      'scram-sha-256',
      '--encoding',
      'UTF8',
      '--no-sync',
    ],
    as,
  )
  const port = await freePort()
  const settings = [
    `-c listen_addresses=127.0.0.1`,
    `-c port=${port}`,
    `-c unix_socket_directories=${dir}`,
    // A test's server: small, and what a test asks of durability is what a crash of the server does, not the disk.
    '-c shared_buffers=32MB',
    '-c max_connections=200',
    ...(options.durable ? [] : ['-c fsync=off']),
  ].join(' ')
  const start = () => run([join(bin, 'pg_ctl'), '-D', data, '-l', join(dir, 'log'), '-w', '-o', settings, 'start'], as)
  await start()
  const base = `postgres://${USER}:${password}@127.0.0.1:${port}`
  const psql = (sql: string) =>
    run([join(bin, 'psql'), '-X', '-q', '-v', 'ON_ERROR_STOP=1', `${base}/postgres`, '-c', sql], as)
  const databases = new Set<string>()
  const database = async (name: string) => {
    if (!/^[a-z][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a database name for a test: ${name}`)
    if (!databases.has(name)) await psql(`CREATE DATABASE ${name}`)
    databases.add(name)
    return `${base}/${name}`
  }
  return {
    url: await database('printhub'),
    port,
    bin,
    database,
    kill: async () => void (await run([join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop'], as)),
    start: async () => void (await start()),
    stop: async () => {
      await run([join(bin, 'pg_ctl'), '-D', data, '-m', 'fast', '-w', 'stop'], as).catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
