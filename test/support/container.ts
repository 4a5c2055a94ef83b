// A Debian machine with its own systemd, for tests of what printhub does to a real one: the root
// file system of scripts/systemd-rootfs.ts booted with `systemd-nspawn --boot`, read-only under a
// throwaway overlay, sharing this machine's network (so its services answer on 127.0.0.1 here).
// Commands run inside it through nsenter into the namespaces of its init. Without D-Bus on this
// machine the container is not registered (--register=no, --keep-unit).
import { readdirSync, readFileSync } from 'node:fs'

export interface Container {
  /** Runs `command` with /bin/sh inside the container, as root, within `timeoutMs`. */
  sh(command: string, timeoutMs?: number): Promise<{ code: number | null; stdout: string; stderr: string }>
  /** The console's output so far (systemd's boot messages). */
  console(): string
  /** Powers it off (systemctl poweroff), or kills it after a deadline. */
  stop(): Promise<void>
}

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs: number,
  detail: () => string = () => '',
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}\n${detail()}`)
    await Bun.sleep(100)
  }
}

/** The children of `pid`, from /proc. */
function childrenOf(pid: number): { pid: number; comm: string }[] {
  const found: { pid: number; comm: string }[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const close = stat.lastIndexOf(')')
      const comm = stat.slice(stat.indexOf('(') + 1, close)
      const ppid = Number(stat.slice(close + 2).split(' ')[1])
      if (ppid === pid) found.push({ pid: Number(entry), comm })
    } catch {
      // Gone meanwhile.
    }
  }
  return found
}

export async function bootContainer(
  rootfs: string,
  binds: { host: string; inside: string }[],
  name: string,
): Promise<Container> {
  let output = ''
  const nspawn = Bun.spawn(
    [
      'systemd-nspawn',
      '--directory',
      rootfs,
      '--volatile=overlay',
      '--register=no',
      '--keep-unit',
      `--machine=${name}`,
      ...binds.map((b) => `--bind-ro=${b.host}:${b.inside}`),
      '--boot',
    ],
    {
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      env: { PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin`, SYSTEMD_LOG_LEVEL: 'info' },
    },
  )
  const decoder = new TextDecoder()
  const read = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true })
  }
  void read(nspawn.stdout)
  void read(nspawn.stderr)
  const detail = () =>
    `systemd-nspawn ${nspawn.exitCode === null ? 'runs' : `exited ${nspawn.exitCode}`}; ` +
    `its output:\n${output.replace(/\x1b\[[0-9;]*m/g, '').slice(-3000)}`
  // The container's init: systemd, a child of systemd-nspawn.
  const leader = await until(
    () =>
      nspawn.exitCode === null
        ? childrenOf(nspawn.pid).find((c) => c.comm === 'systemd')?.pid
        : Promise.reject(new Error(detail())),
    "the container's systemd",
    30_000,
    detail,
  )

  const sh: Container['sh'] = async (command, timeoutMs = 60_000) => {
    const child = Bun.spawn(
      ['nsenter', '--target', String(leader), '--all', '--', '/bin/sh', '-c', `cd / && ${command}`],
      { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { PATH, LANG: 'C.UTF-8' } },
    )
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, timeoutMs)
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    clearTimeout(timer)
    return { code: timedOut ? null : code, stdout, stderr }
  }

  // Booted: systemd says running (or degraded: a unit of the minimal system that cannot work in a container).
  let state = ''
  await until(
    async () => {
      state = (await sh('systemctl is-system-running', 10_000)).stdout.trim()
      return state === 'running' || state === 'degraded' ? state : undefined
    },
    'the container to finish booting',
    90_000,
    () => `systemctl is-system-running: ${state}\n${detail()}`,
  )

  return {
    sh,
    console: () => output,
    async stop() {
      if (nspawn.exitCode !== null) return
      await sh('systemctl poweroff --no-block', 10_000).catch(() => undefined)
      const deadline = Date.now() + 30_000
      while (nspawn.exitCode === null && Date.now() < deadline) await Bun.sleep(100)
      if (nspawn.exitCode === null) {
        nspawn.kill('SIGKILL')
        process.kill(leader, 'SIGKILL')
        await nspawn.exited
      }
    },
  }
}
