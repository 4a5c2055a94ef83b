// Where printhub may send a printer's bytes: printer device files, an output folder of its own, and
// network printers other than itself. A printer's connection is set by whoever has admin rights (or
// an admin token someone stole): without these rules `file://` would append to any file the hub
// may write (its own key files; system files when it runs as root) and `usb:///dev/../…` would
// leave the device folder. Checked when a printer is added or changed (a clear message naming the
// rule) and again each time it is used (a record from before these rules, a link changed since).
import { constants, type Stats, lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { networkInterfaces, hostname } from 'node:os'
import { dirname, join, normalize, relative, resolve } from 'node:path'
import type { Connection } from '../domain/connection-uri.ts'

/** The folder of the data directory that `file://` printers write in. */
export const OUTPUT_DIR = 'output'

/** What a printer's connection may reach, for one hub or agent. */
export interface Confinement {
  /** The only folder `file://` printers may write in (DATA/output). */
  outputDir: string
  /** This machine's ports that are the hub's own (its HTTP port): a TCP printer there is refused. */
  ownPorts: readonly number[]
}

export function confinementOf(dataDir: string, ownPorts: readonly number[] = []): Confinement {
  return { outputDir: join(resolve(dataDir), OUTPUT_DIR), ownPorts }
}

export type Confined = { ok: true } | { ok: false; message: string }
const refuse = (message: string): Confined => ({ ok: false, message })
const OK: Confined = { ok: true }

/**
 * The device files printhub opens, by their real name (after every link is followed, so
 * /dev/serial/by-id/… and /dev/serial0 are fine): serial ports of USB adapters, modem-class
 * printers, the board's UARTs and Bluetooth serial links; usblp printers.
 */
const DEVICE_FAMILIES = {
  serial: /^\/dev\/(ttyUSB|ttyACM|ttyAMA|ttyS|ttyTHS|serial|rfcomm)\d+$/,
  usblp: /^\/dev\/usb\/lp\d+$/,
} as const
/** Names that lead to those files while the device is unplugged (udev's stable links). */
const STABLE_LINKS = /^\/dev\/serial\/by-(id|path)\/[^/]+$/
/** A pseudo-terminal: allowed only when it belongs to printhub's own user (the printer emulator's). */
const PSEUDO_TERMINAL = /^\/dev\/pts\/\d+$/

export type DeviceKind = keyof typeof DEVICE_FAMILIES

const RULE = {
  serial:
    'a serial printer is a serial port: /dev/ttyUSB*, /dev/ttyACM*, /dev/ttyAMA*, /dev/ttyS*, /dev/serial*, ' +
    '/dev/rfcomm* or a link to one in /dev/serial/by-id',
  usblp: 'a USB printer file is /dev/usb/lp* (or usb://VID:PID)',
} as const

const ownUid = () => process.getuid?.() ?? -1

function allowedDevice(real: string, stats: Stats, kind: DeviceKind): boolean {
  if (!stats.isCharacterDevice()) return false
  return DEVICE_FAMILIES[kind].test(real) || (PSEUDO_TERMINAL.test(real) && stats.uid === ownUid())
}

/**
 * The device file to open for `path` (which may be a link): its real name when that is a printer
 * device, else why not. `path` is the file as found (under a stand-in /dev in tests); the rule is
 * on the real file it leads to.
 */
export function confineDevice(
  path: string,
  kind: DeviceKind,
): { ok: true; real: string } | { ok: false; message: string } {
  let real: string
  let stats: Stats
  try {
    real = realpathSync(path)
    stats = statSync(real)
  } catch (error) {
    return {
      ok: false,
      message: `cannot follow ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    }
  }
  if (allowedDevice(real, stats, kind)) return { ok: true, real }
  const shown = real === path ? path : `${path} (which is ${real})`
  return { ok: false, message: `${shown} is not a printer device: ${RULE[kind]}` }
}

/**
 * The rule for a device path when the printer is added: on the file it leads to, or on its name while it is unplugged.
 */
function checkDevicePath(path: string, kind: DeviceKind): Confined {
  if (normalize(path) !== path || !path.startsWith('/dev/'))
    return refuse(`${path} is not a plain path under /dev: ${RULE[kind]}`)
  let exists = true
  try {
    lstatSync(path)
  } catch {
    exists = false
  }
  if (exists) {
    const confined = confineDevice(path, kind)
    return confined.ok ? OK : refuse(confined.message)
  }
  const named =
    DEVICE_FAMILIES[kind].test(path) || PSEUDO_TERMINAL.test(path) || (kind === 'serial' && STABLE_LINKS.test(path))
  return named ? OK : refuse(`${path} is not a printer device: ${RULE[kind]}`)
}

/** Whether `path` lies in `folder` (both absolute and normalised), and not the folder itself. */
function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path)
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith('/')
}

function checkFilePath(path: string, outputDir: string): Confined {
  const rule = `a file printer writes only inside ${outputDir}`
  if (normalize(path) !== path || !inside(outputDir, path))
    return refuse(`${path} is outside the output folder: ${rule}`)
  try {
    // A link anywhere on the way could lead out: the folder it is in must really be inside.
    const folder = realpathSync(dirname(path))
    const top = realpathSync(outputDir)
    if (folder !== top && !inside(top, folder))
      return refuse(`${path} leads outside the output folder through a link: ${rule}`)
    if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) return refuse(`${path} is a link: ${rule}`)
  } catch {
    // The folder does not exist yet: it is made inside the output folder when the first job is written.
  }
  return OK
}

/** The names and addresses of this machine. */
function isThisMachine(host: string): boolean {
  const name = host.toLowerCase()
  if (name === 'localhost' || name.endsWith('.localhost') || name === hostname().toLowerCase()) return true
  if (/^127\./.test(name) || name === '::1' || name === '0.0.0.0' || name === '::') return true
  return Object.values(networkInterfaces()).some((addresses) =>
    addresses?.some((address) => address.address.toLowerCase() === name),
  )
}

function checkTcp(host: string, port: number, ownPorts: readonly number[]): Confined {
  if (ownPorts.includes(port) && isThisMachine(host))
    return refuse(`${host}:${port} is this hub's own port, not a printer`)
  return OK
}

/**
 * Whether a printer's connection stays where printers are: the rule every edge applies when a
 * printer is added or changed, and the agent again before it sends a job.
 */
export function confineConnection(connection: Connection, confinement: Confinement): Confined {
  switch (connection.kind) {
    case 'serial':
      return checkDevicePath(connection.path, 'serial')
    case 'usb-device-file':
      return checkDevicePath(connection.path, 'usblp')
    case 'file':
      return checkFilePath(connection.path, confinement.outputDir)
    case 'tcp':
      return checkTcp(connection.host, connection.port, confinement.ownPorts)
    case 'usb-id':
    case 'virtual':
    case 'cloudprnt':
    case 'epson-sdp':
      return OK
  }
}

/**
 * Opens a file printer's file to append to, inside the output folder only: the folder is made
 * (0700) when missing, the file is never a link (O_NOFOLLOW) nor a hard link to a file elsewhere,
 * nor anything but a plain file, and is made 0600.
 */
export async function openConfinedFile(
  path: string,
  outputDir: string,
): Promise<{ ok: true; file: Awaited<ReturnType<typeof open>> } | { ok: false; message: string }> {
  const checked = checkFilePath(path, outputDir)
  if (!checked.ok) return checked
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  const again = checkFilePath(path, outputDir)
  if (!again.ok) return again
  const file = await open(
    path,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    0o600,
  )
  const stats = await file.stat()
  if (!stats.isFile() || stats.nlink > 1) {
    await file.close()
    return { ok: false, message: `${path} is not a plain file of the output folder` }
  }
  return { ok: true, file }
}
