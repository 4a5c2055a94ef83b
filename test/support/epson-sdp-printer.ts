// An Epson printer with Server Direct Print, written from Epson's SDP user's manual and the
// ePOS-Print XML reference: it posts `ConnectionType=GetRequest` with its ID and Name as form
// fields, reads the PrintRequestInfo it is answered with (each ePOSPrint's printjobid, and the
// ESC/POS in its command element, two hex digits a byte), prints, and posts a SetResponse whose
// ResponseFile is a PrintResponseInfo saying how each job went. What it printed is kept,
// decoded by printhub's preview as an Epson TM-m30III reads ESC/POS.
import { findProfile } from '../../src/profiles/catalog.ts'
import { previewFor } from '../../src/preview/preview.ts'
import { pollEvery } from './polling-hub.ts'

export interface SdpJob {
  printJobId: string
  bytes: Uint8Array
  text: string[]
  xml: string
}

/** ASB status bits a printer reports (Epson's ePOS-Print reference). */
export const ASB_OK = 0x0f000016
export const ASB_RECEIPT_END = 0x00080000
export const ASB_COVER_OPEN = 0x00000020

export class EpsonSdpPrinter {
  /** Its status bits, sent with every response. */
  asb = ASB_OK
  /** What the next response says: success, or a code such as EPTR_REC_EMPTY. */
  code = ''
  /** When false, it takes jobs but never says how they went (switched off mid-print). */
  responds = true
  /**
   * When true, its GetRequest carries its status bits in a Status field, as a SetStatus does (Epson's manual names no
   * such field: a firmware that sends it anyway).
   */
  sendsStatus = false
  readonly jobs: SdpJob[] = []
  readonly responses: { printJobId: string; status: number }[] = []
  polls = 0

  constructor(private readonly options: { url: string; id?: string; name: string }) {}

  private async send(fields: Record<string, string>): Promise<Response> {
    return fetch(this.options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ID: this.options.id ?? '', Name: this.options.name, ...fields }),
    })
  }

  /** One GetRequest, and the jobs it brought printed and answered. */
  async poll(): Promise<SdpJob[]> {
    const response = await this.send({
      ConnectionType: 'GetRequest',
      ...(this.sendsStatus ? { Status: this.statusDocument() } : {}),
    })
    this.polls++
    if (response.status !== 200) throw new Error(`GetRequest answered ${response.status}: ${await response.text()}`)
    const xml = await response.text()
    if (xml === '') return []
    const jobs = xml
      .split('<ePOSPrint>')
      .slice(1)
      .map((part) => {
        const printJobId = /<printjobid>([^<]*)<\/printjobid>/.exec(part)![1]!
        const bytes = Uint8Array.from(Buffer.from(/<command>([0-9a-f]*)<\/command>/.exec(part)![1]!, 'hex'))
        return { printJobId, bytes, text: previewFor(bytes, findProfile('epson-tm-m30iii')!, 80).text, xml }
      })
    this.jobs.push(...jobs)
    if (this.responds) await this.respond(jobs.map((job) => job.printJobId))
    return jobs
  }

  /** A SetResponse for these jobs, with the printer's current code and status. */
  async respond(printJobIds: string[]): Promise<number> {
    const success = this.code === ''
    const file = [
      '<?xml version="1.0" encoding="utf-8"?>',
      '<PrintResponseInfo Version="2.00">',
      ...printJobIds.map(
        (id) =>
          `<ePOSPrint><Parameter><devid>local_printer</devid><printjobid>${id}</printjobid></Parameter>` +
          `<PrintResponse><response ` +
          `xmlns="http://www.epson-pos.com/schemas/2011/03/epos-print" ` +
          `success="${success}" code="${this.code}" status="${this.asb >>> 0}" ` +
          `battery="0"/></PrintResponse></ePOSPrint>`,
      ),
      '</PrintResponseInfo>',
    ].join('')
    const response = await this.send({ ConnectionType: 'SetResponse', ResponseFile: file })
    for (const printJobId of printJobIds) this.responses.push({ printJobId, status: response.status })
    return response.status
  }

  /** A status notification (Epson's Status Notification, set to the same URL), with its current status bits. */
  async notify(): Promise<number> {
    return (await this.send({ ConnectionType: 'SetStatus', Status: this.statusDocument() })).status
  }

  /** Its status bits as a status notification says them. */
  private statusDocument(): string {
    return (
      `<?xml version="1.0" encoding="utf-8"?><statusmonitor ` +
      `Version="1.00"><printerstatus devicename="local_printer" ` +
      `asbstatus="0x${this.asb.toString(16).padStart(8, '0').toUpperCase()}"/></statusmonitor>`
    )
  }

  /** Polls every `intervalMs` until stopped, as the printer does. */
  start(intervalMs = 100): void {
    this.stop = pollEvery(intervalMs, () => this.poll())
  }

  stop: () => void = () => {}
}
