// Which pages a SQLite database's commits write, read from its write-ahead log: `bun run bench disk`
// uses it to say where a job's bytes go. The log is a header and frames, each a page with the page's
// number; a frame that ends a commit holds the database's size in pages. Frames of the log's current
// generation carry its header's salt; after a checkpoint the log starts over with a new salt, over
// the old frames. Which b-tree owns a page is read from SQLite's dbstat table on a copy.
import { Database } from 'bun:sqlite'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'

const HEADER_BYTES = 32
const FRAME_HEADER_BYTES = 24

/** Where the log stands: its generation (salt) and how many frames of it are written. */
export interface WalMark {
  salt: string
  frames: number
}

/** One commit in the log: the database pages it wrote, and where in the log's file it starts. */
export interface WalCommit {
  pages: number[]
  /** The log's bytes it occupies, from its first frame's header to its last page's end. */
  start: number
  end: number
}

interface WalFrames {
  mark: WalMark
  pageSize: number
  commits: WalCommit[]
}

function readWal(walFile: string): WalFrames {
  const bytes = existsSync(walFile) ? readFileSync(walFile) : Buffer.alloc(0)
  if (bytes.length < HEADER_BYTES) return { mark: { salt: '', frames: 0 }, pageSize: 0, commits: [] }
  const pageSize = bytes.readUInt32BE(8)
  const salt = bytes.subarray(16, 24).toString('hex')
  const commits: WalCommit[] = []
  let open: number[] = []
  let start = HEADER_BYTES
  let frames = 0
  const frameBytes = FRAME_HEADER_BYTES + pageSize
  for (let at = HEADER_BYTES; at + frameBytes <= bytes.length; at += frameBytes) {
    if (bytes.subarray(at + 8, at + 16).toString('hex') !== salt) break
    frames++
    open.push(bytes.readUInt32BE(at))
    if (bytes.readUInt32BE(at + 4) !== 0) {
      commits.push({ pages: open, start, end: at + frameBytes })
      open = []
      start = at + frameBytes
    }
  }
  return { mark: { salt, frames }, pageSize, commits }
}

/** The log's generation and length now. */
export function walMark(walFile: string): WalMark {
  return readWal(walFile).mark
}

/**
 * The commits written to the log since `mark`, each as its pages; undefined when the log started over since
 * (a checkpoint), so that they cannot all be read, unless the caller knows that the first commit since the mark is
 * what started it over (`restartedByFirst`).
 */
export function commitsSince(
  walFile: string,
  mark: WalMark,
  { restartedByFirst = false }: { restartedByFirst?: boolean } = {},
): { pageSize: number; commits: WalCommit[] } | undefined {
  const now = readWal(walFile)
  // A log started over by the first commit since the mark (after a checkpoint) holds every commit since.
  if (now.mark.salt !== mark.salt)
    return restartedByFirst ? { pageSize: now.pageSize, commits: now.commits } : undefined
  let skipped = 0
  const commits = now.commits.filter(({ pages }) => {
    skipped += pages.length
    return skipped > mark.frames
  })
  return { pageSize: now.pageSize, commits }
}

/** The file system's pages (4 KB) a commit's frames fall in: each written once the commit is flushed. */
export function fileSystemPages({ start, end }: WalCommit, pageBytes = 4096): number {
  return Math.floor((end - 1) / pageBytes) - Math.floor(start / pageBytes) + 1
}

/**
 * Which table or index owns each page of the database at `file` (with its log), read from a copy; page 1 (the
 * header) and pages no b-tree owns (the pointer map of auto_vacuum, free pages) are named for what they are.
 */
export function pageOwners(file: string): (page: number) => string {
  const dir = mkdtempSync(join(tmpdir(), 'printhub-wal-pages-'))
  try {
    const copy = join(dir, basename(file))
    copyFileSync(file, copy)
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`)
    const db = new Database(copy, { strict: true })
    const owners = new Map<number, string>()
    for (const { name, pageno } of db
      .query<{ name: string; pageno: number }, []>('SELECT name, pageno FROM dbstat')
      .all())
      owners.set(pageno, name)
    db.close()
    return (page) => (page === 1 ? 'page 1 (header)' : (owners.get(page) ?? 'pointer map or free list'))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
