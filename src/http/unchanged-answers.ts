// JSON answers kept while what they were made from is unchanged: an application or a dashboard
// polling the same page is answered with the bytes made for the first ask, without reading,
// projecting and encoding the page again. Each answer is kept with the store's change stamp
// (`Store.changeStamp`); any change to any row, by this process or another, makes every kept
// answer stale, and none is kept while a change is open. So a kept answer is always the one a
// fresh read would give.
import { BoundedMap } from '../platform/bounded-map.ts'

/** At most this many answers (a project's newest page, and one per state filter, for each key). */
const MAX_ANSWERS = 64
/** And at most this many bytes of them in all (a page of 100 jobs is about 50 KB, more with metadata). */
const MAX_BYTES = 8 * 1024 * 1024

const JSON_TYPE = 'application/json;charset=utf-8'

export class UnchangedAnswers {
  private stamp: string | undefined
  private readonly kept: BoundedMap<string, Blob>

  constructor(maxAnswers = MAX_ANSWERS, maxBytes = MAX_BYTES) {
    this.kept = new BoundedMap(maxAnswers, maxBytes)
  }

  /**
   * The answer to `key` (which names everything the answer depends on) made by `make` while the
   * store's stamp is `stamp`; made again once the stamp moved. An undefined stamp (a change is
   * open) makes it afresh and keeps nothing. `make` reads what it answers when it is called (a
   * read of the SQLite store is done then): an answer is kept only under the stamp it was read at.
   */
  async json(stamp: string | undefined, key: string, make: () => unknown): Promise<Response> {
    // A new stamp, or none (a change is open): nothing kept before is used again.
    if (stamp !== this.stamp) {
      this.kept.clear()
      this.stamp = stamp
    }
    let body = this.kept.get(key)
    if (!body) {
      // A Blob, not bytes: each answer shares it, where an array of bytes would be copied into every one.
      const made = make()
      body = new Blob([JSON.stringify(await made)])
      if (stamp !== undefined && stamp === this.stamp) this.kept.set(key, body, body.size)
    }
    return new Response(body, { headers: { 'content-type': JSON_TYPE } })
  }
}
