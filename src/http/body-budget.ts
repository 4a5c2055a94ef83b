// Memory held by request bodies that are still arriving, bounded for the whole process and for
// each caller. Every route reads at most its own limit (jobs 2 MiB), but without a budget a caller
// with a key could start hundreds of slow 2 MiB bodies at once and hold the hub's memory with them
// (300 held about 700 MB). A body claims its bytes before they are kept; one that finds no room
// is answered 429 at once and its connection closed, which ends the read. The caller is the API
// key once the route knows it (so one application, from however many addresses, cannot take the
// others' room), else the address (the small bodies read before any credential: sign-in, pairing).
import { ApiError } from './errors.ts'

/** Bytes of request bodies in flight, all callers together: 16 job-size bodies. */
export const BODIES_IN_FLIGHT_BYTES = 32 * 1_048_576
/** Bytes of request bodies in flight from one caller: 4 job-size bodies, hundreds of real ones. */
export const BODIES_IN_FLIGHT_BYTES_PER_CALLER = 8 * 1_048_576

export interface BodyBudgetLimits {
  totalBytes: number
  perCallerBytes: number
}

/** Bytes one body holds of the budget; given back once, when the body has been read (or refused). */
export class BodyClaim {
  #held = 0
  #released = false
  constructor(
    private readonly budget: BodyBudget,
    private readonly caller: string,
  ) {}

  /** Takes `bytes` more for this body, or throws the 429 that ends it. */
  grow(bytes: number): void {
    if (this.#released) throw new Error('a released body claim cannot grow')
    if (!Number.isSafeInteger(bytes) || bytes < 0)
      throw new ApiError('invalid_request', 'The request body has no valid length.')
    this.budget.take(this.caller, bytes)
    this.#held += bytes
  }

  release(): void {
    if (this.#released) return
    this.#released = true
    this.budget.give(this.caller, this.#held)
  }
}

export class BodyBudget {
  #total = 0
  readonly #byCaller = new Map<string, number>()

  constructor(
    private readonly limits: BodyBudgetLimits = {
      totalBytes: BODIES_IN_FLIGHT_BYTES,
      perCallerBytes: BODIES_IN_FLIGHT_BYTES_PER_CALLER,
    },
  ) {}

  claim(caller: string): BodyClaim {
    return new BodyClaim(this, caller)
  }

  /** Bytes held now, all callers together. */
  get heldBytes(): number {
    return this.#total
  }

  /** @internal by BodyClaim */
  take(caller: string, bytes: number): void {
    const mine = this.#byCaller.get(caller) ?? 0
    if (mine + bytes > this.limits.perCallerBytes)
      throw busy('You are sending too many request bodies at once. Retry in a moment.')
    if (this.#total + bytes > this.limits.totalBytes)
      throw busy('The hub is receiving too many request bodies at once. Retry in a moment.')
    this.#byCaller.set(caller, mine + bytes)
    this.#total += bytes
  }

  /** @internal by BodyClaim */
  give(caller: string, bytes: number): void {
    const left = (this.#byCaller.get(caller) ?? 0) - bytes
    if (left > 0) this.#byCaller.set(caller, left)
    else this.#byCaller.delete(caller)
    this.#total -= bytes
  }
}

// The body is left unread: the answer closes the connection, which also ends the upload.
const busy = (message: string) =>
  new ApiError('rate_limited', message, { headers: { 'retry-after': '1', connection: 'close' } })

/** Where each request's body claims its bytes: attached by the app when the request arrives. */
const budgets = new WeakMap<Request, { budget: BodyBudget; address: () => string }>()

export function attachBodyBudget(request: Request, budget: BodyBudget, address: () => string): void {
  budgets.set(request, { budget, address })
}

/**
 * The claim a body reader makes for `request`, charged to `caller` (e.g. `key:ID`) or else to the
 * request's address; none when the request came from no app (unit tests of the readers).
 */
export function claimBody(request: Request, caller?: string): BodyClaim | undefined {
  const attached = budgets.get(request)
  return attached?.budget.claim(caller ?? `address:${attached.address()}`)
}
