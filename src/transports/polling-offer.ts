// A job offered to a printer that polls the hub, one attempt (`polling.ts` keeps the printers and
// offers it): fetched by the printer, its bytes handed over by the agent, and settled by the
// printer's word, or unconfirmed when that word never comes; withdrawn when it does not go.
import { randomBytes } from 'node:crypto'
import { CLOUDPRNT_CONFIRM_MS } from '../domain/settings.ts'
import { type Failure, failure } from '../protocol/failures.ts'
import type { ReadyPrinter } from './printer-link.ts'
import { CANCELLED, type PrintedOutcome, type PrinterModel, refused, type Stopped } from './submission.ts'

/** How long a fetch waits for the job's bytes once the printer asked (the agent records its intent meanwhile). */
const HAND_OVER_MS = 10_000

type Resolvers<T> = ReturnType<typeof Promise.withResolvers<T>>

/** A job offered to a printer, one attempt: its token is new for each. */
export interface Offer {
  token: string
  model: PrinterModel
  stage: 'offered' | 'fetching' | 'sent'
  /** Settles when the printer fetches the job, or why it will not. */
  fetched: Resolvers<'fetched' | Stopped>
  bytes: Resolvers<Uint8Array | null>
  printed: Resolvers<PrintedOutcome>
  sent?: Uint8Array
  timer?: Timer
  /** The address the job was announced to: only the printer there may fetch it and say how it went. */
  to?: string
}

/** What holds a printer's offer: the printer as `polling.ts` keeps it. */
interface OfferHolder {
  offer?: Offer
}

export function newOffer(model: PrinterModel): Offer {
  return {
    token: randomBytes(12).toString('base64url'),
    model,
    stage: 'offered',
    fetched: Promise.withResolvers(),
    bytes: Promise.withResolvers(),
    printed: Promise.withResolvers(),
  }
}

/** The printer fetches the job it was offered: its bytes once the agent hands them over, or withdrawn. */
export async function fetchOffer(
  seen: OfferHolder,
  offer: Offer,
): Promise<{ offer: Offer; bytes: Uint8Array } | 'withdrawn'> {
  if (offer.stage === 'offered') {
    offer.stage = 'fetching'
    offer.fetched.resolve('fetched')
  }
  const bytes = offer.sent ?? (await within(offer.bytes.promise, HAND_OVER_MS, null))
  if (bytes) return { offer, bytes }
  // Not handed over in time: nothing went, and the job is not the printer's any more.
  if (!offer.sent) withdraw(seen, offer)
  return 'withdrawn'
}

/**
 * The printer that fetched the job, as the agent prints to it: `send` answers the fetch with the
 * bytes (unless `check` finds them unfit), and its outcome is the printer's word, or unconfirmed
 * after `confirmTimeoutMs`.
 */
export function fetchedPrinter(
  seen: OfferHolder,
  offer: Offer,
  confirmTimeoutMs: number | undefined,
  check?: (bytes: Uint8Array) => Failure | null,
): ReadyPrinter {
  return {
    send: async (bytes, sendSignal) => {
      const unfit = check?.(bytes) ?? null
      if (sendSignal.aborted || unfit) {
        withdraw(seen, offer)
        return unfit ? refused(unfit) : CANCELLED
      }
      // The printer gave up waiting for the bytes, or the hub is stopping: nothing goes.
      if (seen.offer !== offer)
        return refused(failure('printer.timeout', 'The printer stopped waiting for the job; nothing was sent.'))
      offer.sent = bytes
      offer.stage = 'sent'
      offer.bytes.resolve(bytes)
      const timeoutMs = confirmTimeoutMs ?? CLOUDPRNT_CONFIRM_MS.default
      offer.timer = setTimeout(
        () =>
          settle(
            seen,
            offer,
            refused(
              failure(
                'printer.unconfirmed',
                `The printer fetched the job but did not say how printing went within ` +
                  `${timeoutMs / 1000} s; it may have printed.`,
              ),
            ),
          ),
        timeoutMs,
      )
      return { ok: true, printed: offer.printed.promise }
    },
    release: () => withdraw(seen, offer),
  }
}

/** Takes the offer back: a fetch gets nothing, and nothing waits for the printer any more. */
export function withdraw(seen: OfferHolder, offer: Offer): void {
  if (seen.offer === offer) seen.offer = undefined
  clearTimeout(offer.timer)
  offer.bytes.resolve(null)
  offer.fetched.resolve(CANCELLED)
}

/** The job's outcome: the printer's word, or why there is none. */
export function settle(seen: OfferHolder, offer: Offer, outcome: PrintedOutcome): void {
  if (seen.offer === offer) seen.offer = undefined
  clearTimeout(offer.timer)
  offer.printed.resolve(outcome)
}

/** `promise`'s value, or `otherwise` once `ms` passed (the timer does not outlive the wait). */
export async function within<T, U>(promise: Promise<T>, ms: number, otherwise: U): Promise<T | U> {
  let timer: Timer | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<U>((resolve) => (timer = setTimeout(() => resolve(otherwise), ms))),
    ])
  } finally {
    clearTimeout(timer)
  }
}
