// A Star CloudPRNT printer, written from Star's CloudPRNT protocol guide: it polls the server URL
// with its status as JSON, answers the server's client actions in its next poll, fetches a job
// it is told is ready (choosing the media type it prefers of those offered), and confirms it
// with a DELETE carrying its status code and the job's token. What it printed is kept, decoded
// by printhub's preview as a Star TSP100IV reads StarPRNT.
import { findProfile } from '../../src/profiles/catalog.ts'
import { previewFor } from '../../src/preview/preview.ts'
import { pollEvery } from './polling-hub.ts'

export interface Fetched {
  token: string
  type: string
  status: number
  bytes: Uint8Array
  /** The receipt as text, in the model's columns (StarPRNT jobs). */
  text: string[]
}

export interface CloudPrntPrinterOptions {
  /** The server URL typed into the printer's web page. */
  url: string
  mac: string
  /** The media types it takes, in its order of preference. */
  accepts?: string[]
  /** What it answers to GetPollInterval, in seconds. */
  pollIntervalS?: number
}

export class CloudPrntPrinter {
  /** Its status code, as it reports it in every poll. */
  statusCode = '200 OK'
  /** What the next confirmation says (a 2xx: it printed). */
  confirmCode = '200 OK'
  /** When false, it fetches jobs but never confirms them (a printer switched off after the download). */
  confirms = true
  readonly fetched: Fetched[] = []
  readonly confirmations: { code: string; status: number }[] = []
  readonly answers: Record<string, unknown>[] = []
  private pendingActions: { request: string; result: unknown }[] = []

  constructor(private readonly options: CloudPrntPrinterOptions) {}

  /** One poll, and whatever it leads to (client actions answered in the next poll, a job fetched and confirmed). */
  async poll(): Promise<Record<string, unknown>> {
    const clientAction = this.pendingActions.splice(0)
    const response = await fetch(this.options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        status: '23 86 00 00 00 00 00 00 00 ',
        printerMAC: this.options.mac,
        statusCode: encodeURIComponent(this.statusCode),
        printingInProgress: false,
        clientAction: clientAction.length > 0 ? clientAction : null,
      }),
    })
    if (response.status !== 200) throw new Error(`poll answered ${response.status}: ${await response.text()}`)
    const answer = (await response.json()) as {
      jobReady: boolean
      mediaTypes?: string[]
      jobToken?: string
      clientAction?: { request: string }[]
    }
    this.answers.push(answer)
    if (answer.clientAction) {
      this.pendingActions = answer.clientAction.map(({ request }) => ({ request, result: this.actionResult(request) }))
      // The printer polls again at once with the answers.
      return this.poll()
    }
    if (answer.jobReady) await this.printJob(answer.mediaTypes ?? [], answer.jobToken)
    return answer
  }

  /** Polls every `intervalMs` until stopped, as the printer does. */
  start(intervalMs = 50): void {
    this.stop = pollEvery(intervalMs, () => this.poll())
  }

  stop: () => void = () => {}

  private async printJob(offered: string[], token: string | undefined): Promise<void> {
    const type = (this.options.accepts ?? ['application/vnd.star.starprnt', 'image/png']).find((t) =>
      offered.includes(t),
    )
    if (!type) return
    const query = new URLSearchParams({ mac: this.options.mac, type, ...(token ? { token } : {}) })
    const response = await fetch(`${this.options.url}?${query}`)
    const bytes = new Uint8Array(await response.arrayBuffer())
    const text =
      response.status === 200 && type === 'application/vnd.star.starprnt'
        ? previewFor(bytes, findProfile('star-tsp143iv')!, 80).text
        : []
    this.fetched.push({
      token: token ?? '',
      type: response.headers.get('content-type') ?? '',
      status: response.status,
      bytes,
      text,
    })
    if (!this.confirms) return
    // Any answer but 200 is confirmed with 520, as Star's guide says the printer does.
    await this.confirm(response.status === 200 ? this.confirmCode : '520 Download error', token)
  }

  /** A confirmation, as the printer sends it after printing (or failing to). */
  async confirm(code: string, token: string | undefined): Promise<number> {
    const query = new URLSearchParams({ mac: this.options.mac, code, ...(token ? { token } : {}) })
    const response = await fetch(`${this.options.url}?${query}`, { method: 'DELETE' })
    this.confirmations.push({ code, status: response.status })
    return response.status
  }

  private actionResult(request: string): unknown {
    switch (request) {
      case 'ClientType':
        return 'Star mC-Print3'
      case 'ClientVersion':
        return '1.5'
      case 'PageInfo':
        return { paperWidth: '80', printWidth: '72', horizontalResolution: '8', verticalResolution: '8' }
      case 'GetPollInterval':
        return String(this.options.pollIntervalS ?? 1)
      default:
        return ''
    }
  }
}
