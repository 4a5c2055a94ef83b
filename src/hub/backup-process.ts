// The running hub's backups are made by `printhub backup` in a process of its own: SQLite's
// VACUUM INTO and the archive's compression are synchronous, and the hub's event loop must not
// wait for them (nor would a crash of the backup touch the hub).
import { join } from 'node:path'
import type { BackupOutcome } from '../services/backup.ts'
import type { MakeBackup } from '../workers/backup-schedule.ts'

/** The command line that runs this printhub: the executable itself once compiled, else Bun with the entry point. */
export function thisPrinthub(): string[] {
  return Bun.main.startsWith('/$bunfs/')
    ? [process.execPath]
    : [process.execPath, join(import.meta.dir, '..', 'main.ts')]
}

/** Backups of `dataDir` made by `printhub backup` run as `printhub` (this one by default). */
export function backupInChildProcess(dataDir: string, printhub: readonly string[] = thisPrinthub()): MakeBackup {
  return async (out, scheduled, signal) => {
    const child = Bun.spawn(
      [...printhub, 'backup', '--data', dataDir, '--out', out, '--json', ...(scheduled ? ['--scheduled'] : [])],
      {
        env: process.env,
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
        // The hub stopping stops the backup: the archive is never left under its name half written.
        signal,
        killSignal: 'SIGKILL',
      },
    )
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    if (code !== 0) {
      const message =
        stderr
          .trim()
          .replace(/^printhub backup: /, '')
          .split('\n')[0] || `printhub backup exited with ${child.signalCode ?? code}`
      return { ok: false, message }
    }
    try {
      return { ok: true, summary: JSON.parse(stdout) } as BackupOutcome
    } catch {
      return { ok: false, message: `printhub backup answered what is not its summary: ${stdout.slice(0, 200)}` }
    }
  }
}
