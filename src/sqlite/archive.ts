// The backup archive: one SQLite file holding a manifest (what it is, who made it, when) and named
// members (files), each cut into compressed chunks, with its size and SHA-256. SQLite checks the
// container; the checksums check what was put in it. Written in a file of mode 0600 (it holds
// private keys and hashed secrets), read without changing it. The layout is docs/backup.md's.
import { Database } from 'bun:sqlite'
import { createHash } from 'node:crypto'
import { closeSync, constants, fsyncSync, openSync, readSync, writeSync } from 'node:fs'
import { bound } from './bound.ts'

/** What the manifest's `format` says of every archive. */
export const ARCHIVE_FORMAT = 'printhub-backup'
/** The layout of the archive's tables; a reader refuses a newer one. */
export const ARCHIVE_FORMAT_VERSION = 1
/** Members are read, compressed and stored this much at a time, so no file is ever held whole. */
const CHUNK_BYTES = 1 << 20
/** zstd's level: fast, and receipts' JSON shrinks several times. */
const COMPRESSION_LEVEL = 3

export interface ArchiveMember {
  /** Its path in the data directory, with `/` between folders (e.g. `agent/agent.key`). */
  name: string
  /** Its permission bits (e.g. 0o600). */
  mode: number
  size: number
  /** SHA-256 of its content, hex. */
  sha256: string
}

/** The file is not a printhub backup archive (not SQLite, or no manifest of ours). */
export class NotAnArchiveError extends Error {}

const TABLES = `
  CREATE TABLE manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
  CREATE TABLE members (name TEXT PRIMARY KEY, mode INTEGER NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL,
    encoding TEXT NOT NULL) STRICT;
  CREATE TABLE chunks (member TEXT NOT NULL REFERENCES members (name), seq INTEGER NOT NULL, data BLOB NOT NULL,
    UNIQUE (member, seq)) STRICT;
`

export class ArchiveWriter {
  private constructor(
    private readonly db: Database,
    readonly path: string,
  ) {}

  /** A new archive at `path`, which must not exist: created with mode 0600 before any byte is in it. */
  static create(path: string): ArchiveWriter {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600))
    const db = new Database(path, { strict: true })
    try {
      // A file that is renamed into place only once complete needs no journal; it is flushed at the end.
      db.run('PRAGMA journal_mode = OFF')
      db.run('PRAGMA synchronous = OFF')
      db.run('PRAGMA page_size = 65536')
      db.transaction(() => {
        db.run(TABLES)
        // First, so that even a file left half written says what it is.
        db.run('INSERT INTO manifest (key, value) VALUES (?, ?), (?, ?)', [
          'format',
          ARCHIVE_FORMAT,
          'format_version',
          String(ARCHIVE_FORMAT_VERSION),
        ])
      })()
    } catch (error) {
      db.close(true)
      throw error
    }
    return new ArchiveWriter(db, path)
  }

  /** Adds the file at `source` as `name`, a chunk at a time; its size and checksum as stored. */
  addFile(name: string, source: string, mode: number): ArchiveMember {
    const hash = createHash('sha256')
    const buffer = Buffer.alloc(CHUNK_BYTES)
    const insert = this.db.query('INSERT INTO chunks (member, seq, data) VALUES (?, ?, ?)')
    const fd = openSync(source, 'r')
    let size = 0
    try {
      this.db.run('INSERT INTO members (name, mode, size, sha256, encoding) VALUES (?, ?, 0, ?, ?)', [
        name,
        mode & 0o777,
        '',
        'zstd',
      ])
      for (let seq = 0; ; seq++) {
        const read = readSync(fd, buffer, 0, CHUNK_BYTES, null)
        if (read === 0 && seq > 0) break
        const chunk = buffer.subarray(0, read)
        hash.update(chunk)
        size += read
        insert.run(name, seq, Bun.zstdCompressSync(chunk, { level: COMPRESSION_LEVEL }))
        if (read === 0) break
      }
    } finally {
      closeSync(fd)
    }
    const member = { name, mode: mode & 0o777, size, sha256: hash.digest('hex') }
    this.db.run('UPDATE members SET size = ?, sha256 = ? WHERE name = ?', [member.size, member.sha256, name])
    return member
  }

  /** Writes the rest of the manifest, closes the file and flushes it to the disk. */
  finish(manifest: Record<string, string | number>): void {
    const insert = this.db.query('INSERT INTO manifest (key, value) VALUES (?, ?)')
    this.db.transaction(() => {
      for (const [key, value] of Object.entries(manifest)) insert.run(key, String(value))
    })()
    this.db.close(true)
    const fd = openSync(this.path, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  }

  /** Closes without finishing (the caller removes the file). */
  abandon(): void {
    this.db.close(true)
  }
}

export class ArchiveReader {
  private constructor(
    private readonly db: Database,
    readonly manifest: Readonly<Record<string, string>>,
  ) {}

  /** Opens an archive for reading; NotAnArchiveError when the file is not one. */
  static open(path: string): ArchiveReader {
    let db: Database
    try {
      db = new Database(path, { readonly: true, strict: true })
    } catch (error) {
      throw new NotAnArchiveError(`${path} cannot be opened as a printhub backup (${(error as Error).message})`)
    }
    try {
      const rows = db.query<{ key: string; value: string }, []>('SELECT key, value FROM manifest').all()
      const manifest = Object.fromEntries(rows.map((row) => [row.key, row.value]))
      if (manifest.format !== ARCHIVE_FORMAT) throw new Error('its manifest is not of a printhub backup')
      return new ArchiveReader(db, manifest)
    } catch (error) {
      db.close(true)
      throw new NotAnArchiveError(`${path} is not a printhub backup (${(error as Error).message})`)
    }
  }

  /** Whether the manifest says it was written completely (a half-written file has only its format). */
  get complete(): boolean {
    return this.manifest.created_at !== undefined
  }

  /** What SQLite's integrity check finds wrong in the archive file itself: nothing when sound. */
  integrityProblems(): string[] {
    const found = this.db
      .query<{ integrity_check: string }, []>('PRAGMA integrity_check')
      .all()
      .map((row) => row.integrity_check)
    return found.length === 1 && found[0] === 'ok' ? [] : found
  }

  members(): ArchiveMember[] {
    return this.db.query<ArchiveMember, []>('SELECT name, mode, size, sha256 FROM members ORDER BY name').all()
  }

  /**
   * Writes member `name` to `target` (a new file, with the member's mode), checking its size and
   * checksum; what is wrong with it, or undefined when it came out whole.
   */
  extract(name: string, target: string): string | undefined {
    const member = this.db
      .query<ArchiveMember & { encoding: string }, [string]>(
        'SELECT name, mode, size, sha256, encoding FROM members WHERE name = ?',
      )
      .get(name)
    if (!member) return `${name} is not in the archive`
    if (member.encoding !== 'zstd') return `${name} is stored in an unknown way (${member.encoding})`
    const hash = createHash('sha256')
    const fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, member.mode)
    let size = 0
    let expected = 0
    try {
      for (const row of this.db
        .query<{ seq: number; data: Uint8Array }, [string]>(
          `SELECT seq, data FROM chunks WHERE member = ${bound()} ORDER BY seq`,
        )
        .iterate(name)) {
        if (row.seq !== expected++) return `${name} misses part ${expected - 1}`
        let chunk: Uint8Array
        try {
          chunk = Bun.zstdDecompressSync(row.data)
        } catch {
          return `${name} is damaged (part ${row.seq} cannot be decompressed)`
        }
        hash.update(chunk)
        size += chunk.length
        if (size > member.size) return `${name} is longer than its manifest says`
        for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at)
      }
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    if (size !== member.size) return `${name} has ${size} bytes where its manifest says ${member.size}`
    if (hash.digest('hex') !== member.sha256) return `${name} does not match its SHA-256 checksum`
    return undefined
  }

  close(): void {
    this.db.close(true)
  }
}
