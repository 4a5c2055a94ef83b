// The API differential's normaliser: what differs between two hubs for no reason of behaviour (generated IDs, keys,
// tokens, times, ports, temporary paths) mapped to placeholders, the same way on both sides. IDs are numbered per kind
// in the order they first appear in a side's recording (`<job#3>`), so a job referred to later is recognised as the
// same one; a key's display prefix gets its key's number (`<phk#1 prefix>`).

/** Record IDs: a type prefix and a UUIDv7 in hex (src/storage/ids.ts). */
const RECORD_ID = /\b(prj|apk|prn|job|agt|key|srv|ses|adt|whk|dst|usr)_[0-9a-f]{32}\b/g
/** Secrets and their display prefixes: project API keys, admin tokens (prefix + 8 characters shown). */
const SECRET = /\b(phk|pha)_[A-Za-z0-9_-]{8,}/g
const WEBHOOK_SECRET = /\bwhsec_[A-Za-z0-9+/=_-]+/g
const REQUEST_ID = /\breq_[0-9a-f]{20}\b/g
const MESSAGE_ID = /\bmsg_(?:test_[0-9a-z]+|[0-9a-f]{32})\b/g
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})/g
/** A time as printed on a receipt (the reprint banner's "First printed for 2026-12-07 03:03"). */
const PRINTED_TIME = /\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})?\b/g
/** A pairing code: two groups of four from the 32-symbol alphabet (no I, O, 0, 1). */
const PAIRING_CODE = /\b[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}\b/g
/** A backup's file name stamp (YYYYMMDD-HHMM). */
const FILE_STAMP = /\b20\d{6}-\d{4}\b/g
/** The session cookie's value. */
const SESSION_COOKIE = /(printhub_session=)([A-Za-z0-9_-]{16,})/g

/** Numbers in fields named after a time (epoch ms or s) are times; those named after a duration are durations. */
const TIME_KEY = /(^at$|At$|^since$|Since$|^time$|Time$|^timestamp$|^date$|^started$|^expires$)/
const DURATION_KEY = /(uptime|Uptime|elapsed|Elapsed|durationMs|tookMs)/
/** Numbers that are facts of the machine a hub runs on (its disk's free space and writes), not of its behaviour. */
const MACHINE_KEY = /^(freeMb|writtenPerDay|hubWrittenPerDay)$/
/** Fields whose string value is a secret without a prefix: registered so it is recognised where it appears again. */
const SECRET_KEYS: Record<string, string> = { csrfToken: 'csrf', token: 'token', setupToken: 'token' }
/** Fields drawn from random inputs as a whole (a QR code of a pairing command): only their presence is compared. */
const OPAQUE_KEYS = new Set(['qrSvg'])

export class Normaliser {
  /** Literal values of this side (its data directory, its tree, its port, tokens seen) and their placeholders. */
  private readonly literals = new Map<string, string>()
  private readonly numbered = new Map<string, string>()
  private readonly counters = new Map<string, number>()

  /** Replaces `value` wherever it appears with `placeholder` (only values of 6 characters or more). */
  literal(value: string, placeholder: string): void {
    if (value.length >= 6 && !this.literals.has(value)) this.literals.set(value, placeholder)
  }

  /** The placeholder of a generated value of a kind, numbered by first appearance. */
  placeholder(kind: string, value: string, suffix = ''): string {
    const key = `${kind} ${value}`
    let found = this.numbered.get(key)
    if (!found) {
      const n = (this.counters.get(kind) ?? 0) + 1
      this.counters.set(kind, n)
      found = `${kind}#${n}`
      this.numbered.set(key, found)
    }
    return `<${found}${suffix}>`
  }

  text(value: string): string {
    let out = value
    for (const [literal, placeholder] of [...this.literals].sort((a, b) => b[0].length - a[0].length))
      out = out.replaceAll(literal, placeholder)
    return out
      .replace(SESSION_COOKIE, (_, name: string, token: string) => `${name}${this.placeholder('session', token)}`)
      .replace(RECORD_ID, (id, kind: string) => this.placeholder(kind, id))
      .replace(SECRET, (secret, kind: string) =>
        this.placeholder(kind, secret.slice(0, 12), secret.length === 12 ? ' prefix' : ''),
      )
      .replace(WEBHOOK_SECRET, (secret) => this.placeholder('whsec', secret))
      .replace(REQUEST_ID, '<req>')
      .replace(MESSAGE_ID, (id) => this.placeholder('msg', id))
      .replace(UUID, (id) => this.placeholder('uuid', id))
      .replace(ISO_TIME, '<time>')
      .replace(PRINTED_TIME, '<time>')
      .replace(PAIRING_CODE, (code) => this.placeholder('code', code))
      .replace(FILE_STAMP, '<stamp>')
  }

  /** A JSON value with every string, and the numbers of time and duration fields, normalised. */
  json(value: unknown, key = ''): unknown {
    if (typeof value === 'string') {
      if (OPAQUE_KEYS.has(key)) return value === '' ? '' : '<opaque>'
      const kind = SECRET_KEYS[key]
      if (kind && !value.startsWith('<') && value.length >= 16 && !/^(phk|pha)_/.test(value))
        this.literal(value, this.placeholder(kind, value))
      return this.text(value)
    }
    if (typeof value === 'number') {
      if (TIME_KEY.test(key) && value >= 1e9) return '<time>'
      if (DURATION_KEY.test(key) || MACHINE_KEY.test(key)) return '<n>'
      return value
    }
    if (Array.isArray(value)) return value.map((item) => this.json(item, key))
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {}
      for (const [name, item] of Object.entries(value)) out[this.text(name)] = this.json(item, name)
      return out
    }
    return value
  }
}
