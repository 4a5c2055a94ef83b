// The files `printhub install` writes: the systemd unit and the udev rule.
import { SERVICE_JIT_ENVIRONMENT } from '../platform/jit.ts'

export const SERVICE_USER = 'printhub'
export const UNIT_PATH = '/etc/systemd/system/printhub.service'
export const UDEV_RULE_PATH = '/etc/udev/rules.d/60-printhub.rules'
export const BINARY_PATH = '/usr/local/bin/printhub'
export const DEFAULT_INSTALL_DATA_DIR = '/var/lib/printhub'

/** The service's memory: reclaimed past MemoryHigh, stopped (and restarted) at MemoryMax. */
export const MEMORY_HIGH = '192M'
export const MEMORY_MAX = '256M'

export interface ServiceSettings {
  binary: string
  dataDir: string
  host: string
  port: number
}

/**
 * Started with the runtime's JIT options for a long-running hub (platform/jit.ts); restarted on
 * failure; hardened (no new privileges, read-only system but its data directory, no home
 * directories, its own /tmp), with the device access receipt printers need: serial ports (ttyS,
 * ttyUSB, ttyACM), usblp files (usb) and raw USB devices (usb_device); its memory bounded to fit a 512 MB board.
 */
export function systemdUnit({ binary, dataDir, host, port }: ServiceSettings): string {
  return `[Unit]
Description=printhub print job service
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=${SERVICE_USER}
Group=${SERVICE_USER}
SupplementaryGroups=dialout lp
${environmentLines(SERVICE_JIT_ENVIRONMENT)
  .map((line) => `${line}\n`)
  .join('')}ExecStart=${binary} serve --host ${host} --port ${port} --data ${dataDir}
Restart=on-failure
RestartSec=2
# Fits a 512 MB board: the hub stays within 128 MB (measured with 10 printers, 5 event streams
# and 2 jobs a second). The kernel reclaims its memory past ${MEMORY_HIGH} and stops it at ${MEMORY_MAX}
# (then it is restarted), before the board runs out.
MemoryHigh=${MEMORY_HIGH}
MemoryMax=${MEMORY_MAX}
KillSignal=SIGTERM
TimeoutStopSec=20
UMask=0027
NoNewPrivileges=yes
ProtectSystem=strict
ReadWritePaths=${dataDir}
ProtectHome=yes
PrivateTmp=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectControlGroups=yes
RestrictSUIDSGID=yes
RestrictRealtime=yes
LockPersonality=yes
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK
DevicePolicy=closed
DeviceAllow=char-ttyS rw
DeviceAllow=char-ttyAMA rw
DeviceAllow=char-ttyUSB rw
DeviceAllow=char-ttyACM rw
DeviceAllow=char-usb rw
DeviceAllow=char-usb_device rw

[Install]
WantedBy=multi-user.target
`
}

/**
 * A runtime option as a unit carries it: a JavaScriptCore option's name, a plain value (nothing that could end the
 * line).
 */
export const RUNTIME_OPTION_NAME = /^BUN_JSC_[A-Za-z0-9]+$/
export const RUNTIME_OPTION_VALUE = /^[A-Za-z0-9.+-]{1,32}$/

/** A unit's line of a runtime option (`Environment=BUN_JSC_…`): the ones printhub writes. */
const isRuntimeOptionLine = (line: string): boolean => line.startsWith('Environment=BUN_JSC_')

/** Runtime options as `NAME=VALUE`, in their order (as a unit, systemd and the bench say them). */
export const runtimeOptionPairs = (environment: Readonly<Record<string, string>>): string[] =>
  Object.entries(environment).map(([name, value]) => `${name}=${value}`)

const environmentLines = (environment: Readonly<Record<string, string>>): string[] =>
  runtimeOptionPairs(environment).map((pair) => `Environment=${pair}`)

/**
 * The unit with its runtime options replaced by `environment`, written just before its
 * `ExecStart` line; every other line as it was. `printhub upgrade` gives an installed unit the
 * options of the executable it installs: an executable's runtime refuses to start on an option it
 * does not know, so they go with the executable, not with the printhub that wrote the unit.
 */
export function withRuntimeOptions(unit: string, environment: Readonly<Record<string, string>>): string {
  const lines = unit.split('\n').filter((line) => !isRuntimeOptionLine(line))
  const at = lines.findIndex((line) => line.startsWith('ExecStart='))
  lines.splice(at < 0 ? lines.length : at, 0, ...environmentLines(environment))
  return lines.join('\n')
}

/** USB receipt printers: the usblp device file and the raw device, for the lp group. */
export function udevRule(): string {
  return `# printhub: USB printers (interface class 7) readable and writable by the lp group.
SUBSYSTEM=="usbmisc", KERNEL=="lp[0-9]*", GROUP="lp", MODE="0660"
SUBSYSTEM=="usb", ENV{DEVTYPE}=="usb_device", ENV{ID_USB_INTERFACES}=="*:0701??:*", GROUP="lp", MODE="0660"
`
}

/** The settings an installed unit was written with (its ExecStart line); undefined when it is not printhub's. */
export function serviceSettingsOf(unit: string): ServiceSettings | undefined {
  const line = /^ExecStart=(\S+) serve --host (\S+) --port (\d+) --data (.+)$/m.exec(unit)
  if (!line) return undefined
  return { binary: line[1]!, host: line[2]!, port: Number(line[3]), dataDir: line[4]!.trim() }
}
