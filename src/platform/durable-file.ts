// Small files that must survive a power cut whole: a key, an identity. A file written in place and cut off by the
// power is left empty or half written (the data was still in the page cache when its size reached the disk); one
// written beside, flushed, renamed over and its folder flushed is either the old file or the whole new one.
import { closeSync, constants, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/** Flushes a file, or a folder's entries (a rename in it), to the disk. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Writes `data` to `file` (created with `mode`) so that a power cut at any moment leaves the old file or this one. */
export function writeFileDurably(file: string, data: string | Uint8Array, mode: number): void {
  const beside = `${file}.${process.pid}.new`
  try {
    const fd = openSync(beside, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, mode)
    try {
      writeFileSync(fd, data)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(beside, file)
  } catch (error) {
    // A full disk, say: nothing half written is left beside.
    rmSync(beside, { force: true })
    throw error
  }
  fsyncPath(dirname(file))
}
