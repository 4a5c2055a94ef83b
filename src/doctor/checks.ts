// `printhub doctor`: what a technician checks when a hub misbehaves, each answered in plain words.
// Read-only: it opens the database for reading and touches nothing else but a test file.
import { accessSync, constants, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SERVER_ID_HEADER } from '../api/routes/health.ts'
import { DATABASE_FILE } from '../store/database.ts'
import { StoreInspection } from '../store/inspection.ts'
import { parseConnectionUri } from '../domain/connection-uri.ts'
import { type Confinement, confineConnection, confinementOf } from '../transports/confine.ts'
import { RETENTION_DAYS } from '../domain/settings.ts'
import { diskStatus } from '../services/disk-guard.ts'

export type Verdict = 'ok' | 'warn' | 'fail'

export interface Finding {
  check: string
  verdict: Verdict
  /** What was found, and what to do when it is not ok. */
  detail: string
}

export interface DoctorOptions {
  dataDir: string
  host: string
  port: number
  /** The server ID the hub is given (PRINTHUB_SERVER_ID), when it is; otherwise the stored one is the hub's. */
  serverId?: string
  /** The hub's minimum free space in MB (PRINTHUB_MIN_FREE_MB, the saved setting, or the default). */
  minFreeMb: number
  now: number
  /** Facts of the machine, read by the caller (injected so each check is testable). */
  machine: MachineFacts
}

export interface MachineFacts {
  arch: string
  pageSize: number | undefined
  /** The groups of the user the hub runs as; undefined when that user is root. */
  groups: string[] | undefined
  usblpLoaded: boolean
}

const MIB = 1024 * 1024
/** Below this much free space a busy day's jobs may not fit. */
/** Printers answer a connection attempt within this, or are taken as unreachable. */
const PRINTER_CONNECT_MS = 2_000
/** The earliest plausible date: a Pi without a network has no real-time clock and starts in 1970. */
const EARLIEST_PLAUSIBLE = Date.UTC(2026, 0, 1)
/** Clocks may step back a little (NTP); more than this behind the newest job means it was wrong. */
const CLOCK_SLACK_MS = 5 * 60_000

export async function diagnose(options: DoctorOptions): Promise<Finding[]> {
  const findings = [platform(options.machine), clock(options.now), dataDirectory(options.dataDir, options.minFreeMb)]
  const database = StoreInspection.open(options.dataDir)
  try {
    findings.push(databaseIntegrity(database, options.dataDir), ...clockAgainstJobs(database, options.now))
    findings.push(await port(options, database))
    findings.push(deviceAccess(options.machine))
    if (database) for (const printer of hubPrinters(database)) findings.push(await printerReachable(printer, confinementOf(options.dataDir, [options.port])))
  } finally {
    database?.close()
  }
  return findings
}

function platform({ arch, pageSize }: MachineFacts): Finding {
  if (arch !== 'arm64' && arch !== 'x64') return { check: 'platform', verdict: 'fail', detail: `${arch}: printhub runs on 64-bit ARM (Raspberry Pi OS 64-bit) and x86-64 only.` }
  if (pageSize !== undefined && pageSize !== 4096) {
    return {
      check: 'platform',
      verdict: 'fail',
      detail: `${arch} with ${pageSize / 1024} KB memory pages: the runtime needs 4 KB pages. On a Raspberry Pi 5 add "kernel=kernel8.img" to /boot/firmware/config.txt and reboot.`,
    }
  }
  return { check: 'platform', verdict: 'ok', detail: `${arch}, 4 KB memory pages` }
}

function clock(now: number): Finding {
  if (now < EARLIEST_PLAUSIBLE) {
    return { check: 'clock', verdict: 'fail', detail: `the clock says ${new Date(now).toISOString()}: it is not set. A Raspberry Pi has no battery clock; connect it to a network with NTP (timedatectl set-ntp true). Job expiry depends on it.` }
  }
  return { check: 'clock', verdict: 'ok', detail: new Date(now).toISOString() }
}

/** The largest entries of a directory (a folder counts with everything in it), biggest first, in words. */
function largestEntries(dir: string, count: number): string {
  let budget = 10_000
  const sizeOf = (path: string): number => {
    if (--budget < 0) return 0
    try {
      const stat = lstatSync(path)
      if (!stat.isDirectory()) return stat.size
      return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0)
    } catch {
      return 0
    }
  }
  const entries = readdirSync(dir).map((name) => ({ name, size: sizeOf(join(dir, name)) }))
  entries.sort((a, b) => b.size - a.size)
  return entries.slice(0, count).map(({ name, size }) => `${name} ${size >= 1024 * MIB ? `${(size / 1024 / MIB).toFixed(1)} GB` : `${Math.round(size / MIB)} MB`}`).join(', ')
}

function dataDirectory(dataDir: string, minFreeMb: number): Finding {
  if (!existsSync(dataDir)) return { check: 'data directory', verdict: 'fail', detail: `${dataDir} does not exist: run "printhub init --data ${dataDir}" (or start the hub once).` }
  const probe = join(dataDir, `.doctor-${process.pid}`)
  try {
    writeFileSync(probe, '')
    rmSync(probe)
  } catch (error) {
    return { check: 'data directory', verdict: 'fail', detail: `${dataDir} is not writable by this user (${(error as NodeJS.ErrnoException).code}): the hub could not store jobs. Give it to the user the hub runs as.` }
  }
  const stats = statfsSync(dataDir)
  const free = stats.bavail * stats.bsize
  const amount = free >= 1024 * MIB ? `${(free / 1024 / MIB).toFixed(1)} GB` : `${Math.floor(free / MIB)} MB`
  const status = diskStatus(Math.floor(free / MIB), minFreeMb)
  if (status.low) {
    const what = `in it: ${largestEntries(dataDir, 3) || 'nothing'} (the rest of the file system holds the rest)`
    if (status.full) return { check: 'data directory', verdict: 'fail', detail: `${dataDir}: only ${amount} free, under the hub's minimum of ${minFreeMb} MB: new jobs are refused. ${what}. Free some space, or lower the retention (printhub settings set retention-days).` }
    return { check: 'data directory', verdict: 'warn', detail: `${dataDir}: ${amount} free, close to the hub's minimum of ${minFreeMb} MB (the hub keeps finished jobs only ${RETENTION_DAYS.min} day while it is); ${what}.` }
  }
  return { check: 'data directory', verdict: 'ok', detail: `${dataDir}, writable, ${amount} free` }
}

function databaseIntegrity(database: StoreInspection | undefined, dataDir: string): Finding {
  if (!database) return { check: 'database', verdict: 'fail', detail: `no readable ${DATABASE_FILE} in ${dataDir}: run "printhub init --data ${dataDir}".` }
  try {
    const problems = database.integrityProblems()
    if (problems.length === 0) return { check: 'database', verdict: 'ok', detail: 'integrity check passed' }
    return { check: 'database', verdict: 'fail', detail: `the database is damaged (${problems.slice(0, 3).join('; ')}). Stop the hub and restore a backup of ${DATABASE_FILE}.` }
  } catch (error) {
    return { check: 'database', verdict: 'fail', detail: `the database cannot be read (${(error as Error).message}). Stop the hub and restore a backup of ${DATABASE_FILE}.` }
  }
}

/** The newest job cannot be from the future: if it is, the clock went back. */
function clockAgainstJobs(database: StoreInspection | undefined, now: number): Finding[] {
  if (!database) return []
  try {
    const newest = database.newestJobAt()
    if (newest && newest > now + CLOCK_SLACK_MS) {
      return [{ check: 'clock', verdict: 'fail', detail: `a job was created at ${new Date(newest).toISOString()}, after what the clock says now: the clock went back. Fix it (NTP) before jobs expire at the wrong time.` }]
    }
  } catch {
    // A damaged database is reported by its own check.
  }
  return []
}

async function port({ host, port: portNumber, dataDir, serverId }: DoctorOptions, database: StoreInspection | undefined): Promise<Finding> {
  const check = 'port'
  const where = `${host}:${portNumber}`
  try {
    const server = Bun.listen({ hostname: host, port: portNumber, socket: { data() {} } })
    server.stop(true)
    return { check, verdict: 'ok', detail: `${where} is free for the hub` }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EADDRINUSE') return { check, verdict: 'fail', detail: `the hub cannot listen on ${where} (${code ?? (error as Error).message}): is the address one of this machine's, and the port one this user may use?` }
  }
  // Taken: by this hub (fine), by another hub, or by another program (the hub cannot start).
  const answer = await printhubAnswer(host, portNumber)
  const own = serverId ?? storedServerId(database)
  if (answer && answer.serverId !== undefined && answer.serverId === own) return { check, verdict: 'ok', detail: `printhub is running on ${where}` }
  const holder = listenerOf(portNumber)
  const pid = holder ? `, PID ${holder.pid}` : ''
  if (answer) {
    const theirs = answer.serverId === undefined ? `printhub that does not say its server ID (an older version${pid})` : `printhub (server ID ${answer.serverId}${pid})`
    const ours = own === undefined ? 'which has no server ID yet' : `server ID ${own}`
    return { check, verdict: 'fail', detail: `${where} is held by another ${theirs}, not by the hub of ${dataDir} (${ours}); which data directory that one uses is unknown. Stop it, or give this hub another port (--port).` }
  }
  const program = holder ? `another program (${holder.name}${pid})` : 'another program'
  return { check, verdict: 'fail', detail: `${where} is used by ${program}: the hub cannot start there. Stop that program or choose another port (--port).` }
}

function storedServerId(database: StoreInspection | undefined): string | undefined {
  try {
    return database?.serverId()
  } catch {
    // A damaged database is reported by its own check.
    return undefined
  }
}

/** Whether a printhub answers /health on the port, and which (the server ID it sends). */
async function printhubAnswer(host: string, portNumber: number): Promise<{ serverId: string | undefined } | undefined> {
  const address = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
  // A hub serving HTTPS (serve --tls-cert) answers on the same port; its certificate names the LAN, not this loopback.
  for (const scheme of ['http', 'https']) {
    try {
      const url = `${scheme}://${address.includes(':') ? `[${address}]` : address}:${portNumber}/health`
      const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(2_000), tls: { rejectUnauthorized: false } })
      const body = (await response.json()) as { service?: string } | null
      if (response.ok && body?.service === 'printhub') return { serverId: response.headers.get(SERVER_ID_HEADER) ?? undefined }
    } catch {
      // Not an answer of ours in this scheme.
    }
  }
  return undefined
}

/**
 * The process listening on a TCP port, found as `ss -p` does: the socket's inode in /proc/net/tcp
 * (and tcp6), then the process with a descriptor on it. Undefined when it cannot be seen (a
 * process of another user, or no /proc).
 */
export function listenerOf(portNumber: number): { pid: number; name: string } | undefined {
  const LISTEN = '0A'
  const inodes = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[]
    try {
      lines = readFileSync(table, 'utf8').split('\n').slice(1)
    } catch {
      continue
    }
    for (const line of lines) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/)
      const local = fields[1]?.split(':')
      if (fields.length >= 10 && fields[3] === LISTEN && local && parseInt(local[local.length - 1]!, 16) === portNumber && fields[9] !== '0') inodes.add(fields[9]!)
    }
  }
  if (inodes.size === 0) return undefined
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return undefined
  }
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      let target: string
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`)
      } catch {
        continue
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
      if (inode === undefined || !inodes.has(inode)) continue
      let name = 'unknown'
      try {
        name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim() || name
      } catch {
        // Gone meanwhile: its PID is still what there is to say.
      }
      return { pid: Number(pid), name }
    }
  }
  return undefined
}

function deviceAccess({ groups, usblpLoaded }: MachineFacts): Finding {
  const usb = usblpLoaded ? 'usblp is loaded' : 'usblp is not loaded (USB printers are reached by vendor and product ID instead)'
  if (groups === undefined) return { check: 'serial and USB', verdict: 'ok', detail: `running as root; ${usb}` }
  const missing = ['dialout', 'lp'].filter((group) => !groups.includes(group))
  if (missing.length > 0) {
    return { check: 'serial and USB', verdict: 'warn', detail: `this user is not in ${missing.join(' and ')}: it cannot open serial (dialout) or USB (lp) printers. Run "sudo usermod -aG dialout,lp USER" and log in again; ${usb}.` }
  }
  return { check: 'serial and USB', verdict: 'ok', detail: `in dialout and lp; ${usb}` }
}

/** The printers this machine drives itself (the built-in agent's); remote agents check their own. */
type HubPrinter = ReturnType<StoreInspection['hubPrinters']>[number]

function hubPrinters(database: StoreInspection): HubPrinter[] {
  try {
    return database.hubPrinters()
  } catch {
    return []
  }
}

async function printerReachable(printer: HubPrinter, confinement: Confinement): Promise<Finding> {
  const { remoteId: name, connection: uri } = printer
  const check = `printer ${name}`
  const parsed = parseConnectionUri(uri)
  if (!parsed.ok) return { check, verdict: 'fail', detail: `its connection ${uri} is invalid: ${parsed.message}` }
  const connection = parsed.connection
  // A record from before printers were confined: jobs to it fail until its connection is changed.
  const confined = confineConnection(connection, confinement)
  if (!confined.ok) return { check, verdict: 'fail', detail: `its connection ${uri} is refused: ${confined.message}. Change it on the dashboard's Printers page (or printers remove, then printers add).` }
  switch (connection.kind) {
    case 'tcp':
      return (await tcpAnswers(connection.host, connection.port))
        ? { check, verdict: 'ok', detail: `${connection.host}:${connection.port} accepts connections` }
        : { check, verdict: 'fail', detail: `${connection.host}:${connection.port} does not answer: is the printer on, on this network, and is the address right?` }
    case 'virtual':
      return { check, verdict: 'ok', detail: 'a virtual printer (nothing is printed on paper)' }
    case 'file':
    case 'serial':
    case 'usb-device-file':
      try {
        accessSync(connection.path, constants.W_OK)
        return { check, verdict: 'ok', detail: `${connection.path} is writable` }
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        return { check, verdict: 'fail', detail: code === 'ENOENT' ? `${connection.path} does not exist: is the printer plugged in and on?` : `${connection.path} is not writable by this user (${code}).` }
      }
    case 'usb-id':
      return { check, verdict: 'warn', detail: `USB ${connection.vendorId.toString(16).padStart(4, '0')}:${connection.productId.toString(16).padStart(4, '0')}: not checked here` }
    case 'cloudprnt':
    case 'epson-sdp': {
      // The hub records a polling printer's state as its polls say it, and offline once they stop.
      const [what, path] = connection.kind === 'cloudprnt' ? [`CloudPRNT printer ${connection.mac}`, '/cloudprnt'] : [`Epson Server Direct Print printer ${connection.id}`, '/epson-sdp']
      return printer.state === null || printer.state === 'offline'
        ? { check, verdict: 'warn', detail: `${what} has not polled the hub recently${printer.since ? ` (offline since ${printer.since})` : ''}: is it on, and is its server URL this hub's ${path}? (docs/cloud-printers.md)` }
        : { check, verdict: 'ok', detail: `${what} polls the hub (${printer.state} since ${printer.since})` }
    }
  }
}

function tcpAnswers(host: string, portNumber: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), PRINTER_CONNECT_MS)
    Bun.connect({
      hostname: host,
      port: portNumber,
      socket: {
        open(socket) {
          clearTimeout(timer)
          socket.end()
          resolve(true)
        },
        data() {},
        connectError() {
          clearTimeout(timer)
          resolve(false)
        },
      },
    }).catch(() => {
      clearTimeout(timer)
      resolve(false)
    })
  })
}

/** The facts of this machine, as the doctor reads them. */
export function readMachineFacts(): MachineFacts {
  const run = (argv: string[]) => {
    const result = Bun.spawnSync(argv, { stdout: 'pipe', stderr: 'ignore' })
    return result.exitCode === 0 ? result.stdout.toString().trim() : undefined
  }
  const pageSize = Number(run(['getconf', 'PAGESIZE']))
  const isRoot = process.getuid?.() === 0
  return {
    arch: process.arch,
    pageSize: Number.isFinite(pageSize) && pageSize > 0 ? pageSize : undefined,
    groups: isRoot ? undefined : (run(['id', '-Gn']) ?? '').split(/\s+/).filter(Boolean),
    usblpLoaded: existsSync('/sys/module/usblp') || (existsSync('/dev/usb') && readdirSync('/dev/usb').some((name) => name.startsWith('lp'))),
  }
}
