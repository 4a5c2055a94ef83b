// The process listening on a TCP port, as `ss -p` finds it, for the doctor to name who holds the
// hub's port.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

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
      if (
        fields.length >= 10 &&
        fields[3] === LISTEN &&
        local &&
        parseInt(local[local.length - 1]!, 16) === portNumber &&
        fields[9] !== '0'
      )
        inodes.add(fields[9]!)
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
