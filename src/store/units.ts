// The SQLite store runs the services' units of work (storage/unit.ts) at once: a change inside the group commit's
// transaction, start to end within one turn of the event loop, so nothing interleaves with it and one flush serves
// every change of the turn, as the store's own code always ran; a read straight from the database.
import type { Db, Repositories, UnitRunner, WriteOptions } from '../storage/repositories.ts'
import { answeringAtOnce, runNow, type Unit } from '../storage/unit.ts'
import type { Store } from './store.ts'

export class SqliteUnits implements UnitRunner {
  /** The store as the repositories units call (checked here: the store implements every one). */
  private readonly repositories: Repositories
  /** The same, answering each call at once (a unit runs straight through). */
  private readonly db: Db

  constructor(private readonly store: Store) {
    this.repositories = store
    this.db = answeringAtOnce<Repositories>(store)
  }

  /** A change, in the open group commit (rolled back when the unit throws). */
  async write<T>(work: (db: Db) => Unit<T>, options: WriteOptions = {}): Promise<T> {
    const change = () => runNow(work(this.db), this.repositories)
    return options.deferred ? this.store.commits.defer(change) : this.store.commits.write(change)
  }

  /** Settles once every change written so far is on disk (the group commit's flush). */
  durable(): Promise<void> {
    return this.store.commits.durable()
  }

  /** A read. */
  async read<T>(work: (db: Db) => Unit<T>): Promise<T> {
    return runNow(work(this.db), this.repositories)
  }
}
