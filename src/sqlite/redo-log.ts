// The redo log: two files beside a database (`FILE-redo-a`, `FILE-redo-b`), each made of zeros as it grows, that
// hold the changes of the open batch transaction (redo-changes.ts says what a record holds) until that transaction is
// committed to the database. A record is written in place and made durable with fdatasync(2): on an SD card that is
// one 4 KB page a record, where a commit to SQLite's write-ahead log writes every b-tree page it changed.
//
// A record: magic, the log's number, its sequence number, its length and a CRC-32 of all that and the bytes, then the
// bytes. Records follow each other from the start of a file; the sequence numbers of the records a reader takes from a
// file rise by one each, so reading stops at the first record that is torn (a power cut in its write), foreign (another
// log's) or stale (what an earlier round left behind it). The database names the log and the last record it holds
// (`PRAGMA application_id`, `PRAGMA user_version`, written in the commit that holds the record's changes); a file is
// written again from its start only when every record in it is in the database and that is on disk.
import { closeSync, fdatasyncSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * The largest each of the two files grows. A batch is committed early once its records fill half of that
 * (redo-batch.ts), so that the other file is free again before this one is full. A job's records are some 6 KB: at a
 * venue's pace (a few jobs a second) a file stays at its first REDO_GROWTH_BYTES; a hub taking 1,000 jobs a second
 * fills 12 MB in a two-second batch (smaller files ended batches early, and cost a third of that hub's throughput).
 */
export const REDO_FILE_BYTES = 32 * 1_048_576
/**
 * How a file grows: by this much of zeros at a time, written once (a record then only changes bytes written before: no
 * metadata of the file system to flush with it).
 */
export const REDO_GROWTH_BYTES = 1_048_576
const MAGIC = 0x31_52_48_50
const HEADER_BYTES = 24

/** The two files of a database's redo log. */
export function redoFiles(databaseFile: string): readonly [string, string] {
  return [`${databaseFile}-redo-a`, `${databaseFile}-redo-b`]
}

export interface RedoRecord {
  seq: number
  payload: string
}

/** The records of one file that a reader takes: from its start, of log `logId`, rising by one. */
export function readRedoFile(path: string, logId: number): RedoRecord[] {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return []
  }
  try {
    // Read as far as the records go (a file may have grown to 32 MB; its records seldom fill more than its start).
    const size = Math.min(fstatSync(fd).size, REDO_FILE_BYTES)
    let bytes = new Uint8Array(0)
    for (;;) {
      const more = new Uint8Array(Math.min(size, Math.max(REDO_GROWTH_BYTES, bytes.length * 2)))
      more.set(bytes)
      let read = bytes.length
      while (read < more.length) {
        const n = readSync(fd, more, read, more.length - read, read)
        if (n === 0) break
        read += n
      }
      bytes = more.subarray(0, read)
      const { records, cut } = parseRecords(bytes, logId)
      if (!cut || bytes.length >= size) return records
    }
  } finally {
    closeSync(fd)
  }
}

/** The records `bytes` (a file's content) holds for log `logId`; never throws, whatever the bytes. */
export function parseRedo(bytes: Uint8Array, logId: number): RedoRecord[] {
  return parseRecords(bytes, logId).records
}

/** The records, and whether the bytes ended in the middle of the next (more of the file may hold it). */
function parseRecords(bytes: Uint8Array, logId: number): { records: RedoRecord[]; cut: boolean } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const decoder = new TextDecoder('utf-8', { fatal: true })
  const records: RedoRecord[] = []
  let at = 0
  for (;;) {
    if (at + HEADER_BYTES > bytes.length) return { records, cut: true }
    if (view.getUint32(at, true) !== MAGIC || view.getUint32(at + 4, true) !== logId) break
    const seq = view.getFloat64(at + 8, true)
    const length = view.getUint32(at + 16, true)
    if (!Number.isSafeInteger(seq) || seq < 1) break
    if (records.length > 0 && seq !== records.at(-1)!.seq + 1) break
    if (length > REDO_FILE_BYTES) break
    if (length > bytes.length - at - HEADER_BYTES) return { records, cut: true }
    const end = at + HEADER_BYTES + length
    // The CRC is of the record with its CRC field zero.
    const crc = view.getUint32(at + 20, true)
    view.setUint32(at + 20, 0, true)
    const sound = Bun.hash.crc32(bytes.subarray(at, end)) === crc
    view.setUint32(at + 20, crc, true)
    if (!sound) break
    let payload: string
    try {
      payload = decoder.decode(bytes.subarray(at + HEADER_BYTES, end))
    } catch {
      break
    }
    records.push({ seq, payload })
    at = end
  }
  return { records, cut: false }
}

/** The records of both files for log `logId`, by sequence number. */
export function readRedo(databaseFile: string, logId: number): Map<number, string> {
  const bySeq = new Map<number, string>()
  for (const file of redoFiles(databaseFile)) {
    for (const record of readRedoFile(file, logId)) bySeq.set(record.seq, record.payload)
  }
  return bySeq
}

/** The records above `after`, in order, for as long as they follow each other: what a database at `after` lacks. */
export function redoAfter(records: ReadonlyMap<number, string>, after: number): RedoRecord[] {
  const found: RedoRecord[] = []
  for (let seq = after + 1; records.has(seq); seq++) found.push({ seq, payload: records.get(seq)! })
  return found
}

/** The file the log writes to now, and where. */
export class RedoLog {
  private readonly fds: [number, number]
  /** Each file's size: how far it is made of zeros or records. */
  private readonly sizes: [number, number]
  private current: 0 | 1 = 0
  private offset = 0
  /** The highest sequence number each file holds. */
  private readonly highest: [number, number] = [0, 0]
  private readonly encoder = new TextEncoder()

  private constructor(
    readonly files: readonly [string, string],
    private readonly logId: number,
  ) {
    this.fds = [openFile(files[0]), openFile(files[1])]
    this.sizes = [fstatSync(this.fds[0]).size, fstatSync(this.fds[1]).size]
    // The files' names reach the disk before a record in them is said durable.
    const folder = openSync(dirname(files[0]), 'r')
    try {
      fsyncSync(folder)
    } finally {
      closeSync(folder)
    }
  }

  /** The log of a database file, numbered `logId`: both files made (once), written from the start. */
  static open(databaseFile: string, logId: number): RedoLog {
    return new RedoLog(redoFiles(databaseFile), logId)
  }

  /** Which of the two files is being written. */
  get currentIndex(): number {
    return this.current
  }

  private get fd(): number {
    return this.fds[this.current]
  }

  /**
   * Writes record `seq` at the end of the current file (into the page cache), the file grown first if it must be;
   * false when it cannot grow that far.
   */
  append(seq: number, payload: string): boolean {
    const body = this.encoder.encode(payload)
    const length = HEADER_BYTES + body.length
    const end = this.offset + length
    if (end > REDO_FILE_BYTES) return false
    if (end > this.sizes[this.current]) {
      const size = Math.min(REDO_FILE_BYTES, Math.ceil(end / REDO_GROWTH_BYTES) * REDO_GROWTH_BYTES)
      zeros(this.fd, this.sizes[this.current], size)
      this.sizes[this.current] = size
    }
    const record = new Uint8Array(length)
    const view = new DataView(record.buffer)
    view.setUint32(0, MAGIC, true)
    view.setUint32(4, this.logId, true)
    view.setFloat64(8, seq, true)
    view.setUint32(16, body.length, true)
    record.set(body, HEADER_BYTES)
    view.setUint32(20, Bun.hash.crc32(record), true)
    let written = 0
    while (written < length) written += writeSync(this.fd, record, written, length - written, this.offset + written)
    this.offset += length
    this.highest[this.current] = seq
    return true
  }

  /**
   * Goes on in the other file, from its start, if every record it holds is in the database on disk (`durableUpTo`);
   * whether it did.
   */
  switchIfFree(durableUpTo: number): boolean {
    const other = this.current === 0 ? 1 : 0
    if (this.highest[other] > durableUpTo) return false
    this.current = other
    this.offset = 0
    this.highest[other] = 0
    return true
  }

  /** How much of the current file is written. */
  get used(): number {
    return this.offset
  }

  close(): void {
    for (const fd of this.fds) {
      try {
        closeSync(fd)
      } catch {
        // Closed already.
      }
    }
  }
}

/**
 * Opens a file of the log, made of zeros (flushed) up to REDO_GROWTH_BYTES the first time; a file left by an earlier
 * run keeps its size and bytes (what they hold was applied at the database's open).
 */
function openFile(path: string): number {
  const fd = openSync(path, 'a+', 0o600)
  closeSync(fd)
  const rw = openSync(path, 'r+')
  try {
    const size = fstatSync(rw).size
    if (size < REDO_GROWTH_BYTES || size % 4096 !== 0) {
      zeros(rw, size - (size % 4096), Math.max(REDO_GROWTH_BYTES, Math.ceil(size / 4096) * 4096))
      fdatasyncSync(rw)
    }
  } catch (error) {
    closeSync(rw)
    throw error
  }
  return rw
}

/**
 * Writes zeros from `from` to `to`, in 4 KB writes: the page cache then holds the file in 4 KB pages, and a record
 * dirties (and the disk writes) the few it falls in, not a large folio of 64 KB that one 64 KB write would have made
 * (Linux 6.16 and later). The next flush of the file makes its new size durable with the record it holds.
 */
function zeros(fd: number, from: number, to: number): void {
  const page = new Uint8Array(4096)
  for (let at = from; at < to; at += page.length) writeSync(fd, page, 0, Math.min(page.length, to - at), at)
}
