// Which boot of the machine this is. Files in the page cache outlive a process killed with -9 but
// not a power cut or a kernel crash, both of which end the boot: what a process wrote without a
// flush can be trusted after its own crash only within the same boot.
import { readFileSync } from 'node:fs'

const BOOT_ID_FILE = '/proc/sys/kernel/random/boot_id'

/** The kernel's ID of the current boot (Linux); undefined where the system gives none. */
export function bootId(file = BOOT_ID_FILE): string | undefined {
  try {
    const id = readFileSync(file, 'utf8').trim()
    return /^[0-9a-f-]{36}$/.test(id) ? id : undefined
  } catch {
    return undefined
  }
}
