// A memory cgroup of the kernel's with a hard limit, for a process the tests start in it (as systemd's MemoryMax=
// starts the installed hub): cgroup v2 where its memory controller is on, else v1's memory controller. Needs root.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface MemoryCgroup {
  /** Put before a command: it joins the cgroup, then runs the command in its place (the same process ID). */
  wrap: string[]
  /** The most memory the cgroup's processes have used at once, in bytes (the kernel's own peak). */
  peakBytes(): number
  /** How often the cgroup's processes reached the limit (the kernel then reclaimed or killed). */
  timesAtLimit(): number
  /** Removes the cgroup, once its processes have exited. */
  remove(): void
}

const V2 = '/sys/fs/cgroup'
const V1 = '/sys/fs/cgroup/memory'

let made = 0

function hasV2Memory(): boolean {
  const controllers = join(V2, 'cgroup.controllers')
  return existsSync(controllers) && readFileSync(controllers, 'utf8').split(/\s+/).includes('memory')
}

export function memoryCgroup(limitBytes: number): MemoryCgroup {
  const name = `printhub-test-${process.pid}-${made++}`
  const read = (file: string) => readFileSync(file, 'utf8')
  let dir: string
  let peak: () => number
  let atLimit: () => number
  if (hasV2Memory()) {
    writeFileSync(join(V2, 'cgroup.subtree_control'), '+memory')
    dir = join(V2, name)
    mkdirSync(dir)
    writeFileSync(join(dir, 'memory.max'), String(limitBytes))
    peak = () => Number(read(join(dir, 'memory.peak')).trim())
    atLimit = () => Number(/^max (\d+)$/m.exec(read(join(dir, 'memory.events')))?.[1] ?? 0)
  } else if (existsSync(join(V1, 'memory.limit_in_bytes'))) {
    dir = join(V1, name)
    mkdirSync(dir)
    writeFileSync(join(dir, 'memory.limit_in_bytes'), String(limitBytes))
    peak = () => Number(read(join(dir, 'memory.max_usage_in_bytes')).trim())
    atLimit = () => Number(read(join(dir, 'memory.failcnt')).trim())
  } else {
    throw new Error('this machine has no memory cgroup to run the test in (cgroup v2 memory controller, or v1 memory)')
  }
  return {
    wrap: ['sh', '-c', `echo $$ > ${join(dir, 'cgroup.procs')} && exec "$@"`, 'sh'],
    peakBytes: peak,
    timesAtLimit: atLimit,
    remove: () => rmdirSync(dir),
  }
}
