// The wall clock of one process moved, and only its: libfaketime (Debian's `libfaketime`, installed by npm test),
// preloaded into it, reads the offset from a file the test writes (at most a second later), and leaves the monotonic
// clock alone, as a real jump of the system clock does.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { libfaketimePath } from '../../scripts/test-prerequisites.ts'

export class MovedClock {
  private readonly file: string

  constructor(dir: string) {
    this.file = join(dir, 'faketime-offset')
    this.set('+0')
  }

  /** The environment that puts a process under this clock. */
  env(): Record<string, string> {
    const library = libfaketimePath()
    if (!library) throw new Error('libfaketime is not installed (npm test installs it: scripts/test-prerequisites.ts)')
    return {
      LD_PRELOAD: library,
      FAKETIME_TIMESTAMP_FILE: this.file,
      FAKETIME_CACHE_DURATION: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    }
  }

  /** The wall clock, from now on, this far from the real one: `+365d`, `-1d`, `+0`. */
  set(offset: string): void {
    writeFileSync(this.file, `${offset}\n`)
  }
}
