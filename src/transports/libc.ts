// The few C library calls the device transports need and node:fs lacks: terminal settings and
// queue sizes (ioctl) and, for the printer emulator, pseudo-terminals. Opened on first use, so a
// hub that drives only network printers never loads it.
import { dlopen, FFIType, type Pointer, ptr, toArrayBuffer } from 'bun:ffi'

/** ioctl requests (Linux, the same on x86-64 and arm64). */
export const TCGETS = 0x5401
export const TCSETS = 0x5402
/** Bytes written and not yet sent by the serial port. */
export const TIOCOUTQ = 0x5411
/** Discard queued bytes; the argument says which (TCOFLUSH: written, not sent). */
export const TCFLSH = 0x540b
export const TCOFLUSH = 1

let library: ReturnType<typeof load> | undefined

function load() {
  return dlopen('libc.so.6', {
    ioctl: { args: [FFIType.i32, FFIType.u64, FFIType.ptr], returns: FFIType.i32 },
    posix_openpt: { args: [FFIType.i32], returns: FFIType.i32 },
    grantpt: { args: [FFIType.i32], returns: FFIType.i32 },
    unlockpt: { args: [FFIType.i32], returns: FFIType.i32 },
    ptsname_r: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  }).symbols
}

const libc = () => (library ??= load())

class LibcError extends Error {}

function check(result: number, what: string): number {
  if (result < 0) throw new LibcError(`${what} failed (errno ${errno()})`)
  return result
}

function errno(): number {
  const location = libc().__errno_location()
  return location ? new Int32Array(toArrayBuffer(location, 0, 4))[0]! : 0
}

/** ioctl with a buffer argument; throws when the device does not support it. */
export function ioctl(fd: number, request: number, buffer: Uint8Array | Int32Array, what: string): void {
  check(libc().ioctl(fd, request, ptr(buffer)), what)
}

/** ioctl with an int argument. */
export function ioctlWith(fd: number, request: number, value: number, what: string): void {
  // The argument travels in the pointer's register: an int is passed as a pointer's value.
  check(libc().ioctl(fd, request, value as Pointer), what)
}

/** An int the device reports (TIOCOUTQ). */
export function ioctlInt(fd: number, request: number, what: string): number {
  const value = new Int32Array(1)
  ioctl(fd, request, value, what)
  return value[0]!
}

/** A new pseudo-terminal: the master's descriptor (non-blocking) and the path of its other end. */
export function openPty(flags: number): { master: number; path: string } {
  const { posix_openpt, grantpt, unlockpt, ptsname_r } = libc()
  const master = check(posix_openpt(flags), 'posix_openpt')
  check(grantpt(master), 'grantpt')
  check(unlockpt(master), 'unlockpt')
  const name = new Uint8Array(128)
  if (ptsname_r(master, ptr(name), name.length) !== 0) throw new LibcError('ptsname_r failed')
  return { master, path: new TextDecoder().decode(name.subarray(0, name.indexOf(0))) }
}
