// The doctor's checks of the machine: a platform the runtime runs on (64-bit, 4 KB memory pages),
// and access to serial and USB printers; with the facts of the machine they read.
import { existsSync, readdirSync } from 'node:fs'
import type { Finding } from './finding.ts'

export interface MachineFacts {
  arch: string
  pageSize: number | undefined
  /** The groups of the user the hub runs as; undefined when that user is root. */
  groups: string[] | undefined
  usblpLoaded: boolean
}

export function platform({ arch, pageSize }: MachineFacts): Finding {
  if (arch !== 'arm64' && arch !== 'x64')
    return {
      check: 'platform',
      verdict: 'fail',
      detail: `${arch}: printhub runs on 64-bit ARM (Raspberry Pi OS 64-bit) and x86-64 only.`,
    }
  if (pageSize !== undefined && pageSize !== 4096) {
    return {
      check: 'platform',
      verdict: 'fail',
      detail:
        `${arch} with ${pageSize / 1024} KB memory pages: the runtime needs 4 KB ` +
        `pages. On a Raspberry Pi 5 add "kernel=kernel8.img" to ` +
        `/boot/firmware/config.txt and reboot.`,
    }
  }
  return { check: 'platform', verdict: 'ok', detail: `${arch}, 4 KB memory pages` }
}

export function deviceAccess({ groups, usblpLoaded }: MachineFacts): Finding {
  const usb = usblpLoaded
    ? 'usblp is loaded'
    : 'usblp is not loaded (USB printers are reached by vendor and product ID instead)'
  if (groups === undefined) return { check: 'serial and USB', verdict: 'ok', detail: `running as root; ${usb}` }
  const missing = ['dialout', 'lp'].filter((group) => !groups.includes(group))
  if (missing.length > 0) {
    return {
      check: 'serial and USB',
      verdict: 'warn',
      detail:
        `this user is not in ${missing.join(' and ')}: it cannot open serial ` +
        `(dialout) or USB (lp) printers. Run "sudo usermod -aG dialout,lp USER" ` +
        `and log in again; ${usb}.`,
    }
  }
  return { check: 'serial and USB', verdict: 'ok', detail: `in dialout and lp; ${usb}` }
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
    usblpLoaded:
      existsSync('/sys/module/usblp') ||
      (existsSync('/dev/usb') && readdirSync('/dev/usb').some((name) => name.startsWith('lp'))),
  }
}
