// Epson Server Direct Print as printhub speaks it: the printer posts form fields to
// `POST /epson-sdp` (`ConnectionType=GetRequest` to ask for jobs, `SetResponse` with the
// `ResponseFile` of how they went, `SetStatus` with its status), and is answered with a
// `PrintRequestInfo` document carrying the next job as ePOS-Print XML (printhub's ESC/POS bytes
// in a `command` element), or nothing. The printer's documents are read leniently, by local
// element names, as Epson's own examples vary; only what printhub acts on is read. Epson's manual
// gives a GetRequest no status (only `ConnectionType` and `ID`); one that carries a `Status`
// field all the same, as a SetStatus does, is read the same way.

export const EPSON_SDP_PATH = '/epson-sdp'
export const EPOS_PRINT_NAMESPACE = 'http://www.epson-pos.com/schemas/2011/03/epos-print'
/** The largest form printhub reads (a response for a few jobs is a few KB). */
export const MAX_SDP_FORM_BYTES = 65_536
/** Epson's limit of a request document is 2 MB; a job's bytes are written as two hex digits each. */
export const MAX_SDP_JOB_BYTES = 1_000_000
/** How long the printer may wait for itself to be ready for a job before it answers EX_TIMEOUT (ms). */
export const SDP_PRINT_TIMEOUT_MS = 30_000

/** An ID as Epson's Web Config allows it (the printer's `ID`, or its `Name`: a serial number by default). */
export const SDP_ID_PATTERN = /^[A-Za-z0-9_.-]{1,30}$/

export type SdpMessage =
  /**
   * `asb`: status bits, when the GetRequest carries them (Epson's manual names no such field; read as a SetStatus's
   * when there).
   */
  | { type: 'GetRequest'; printer: string; asb: number | null }
  | { type: 'SetResponse'; printer: string; responses: SdpResponse[]; requestError: string | null }
  | { type: 'SetStatus'; printer: string; asb: number | null }

/** How one job went, as the printer says it. */
export interface SdpResponse {
  /** The job's ID as printhub sent it; null from a printer that answers in Version 1.00. */
  printJobId: string | null
  success: boolean
  code: string
  /** The printer's ASB status bits. */
  status: number
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string }

/** Reads the form a printer posts: which printer (its `ID`, else its `Name`), and what it says. */
export function parseSdpForm(form: URLSearchParams): Parsed<SdpMessage> {
  const type = form.get('ConnectionType')
  const id = form.get('ID') ?? ''
  const printer = id !== '' ? id : (form.get('Name') ?? '')
  if (!SDP_ID_PATTERN.test(printer))
    return { ok: false, message: 'ID (or, without one, Name) must be 1 to 30 letters, digits, _ . or -' }
  switch (type) {
    case 'GetRequest':
      return { ok: true, value: { type, printer, asb: asbOf(form) } }
    case 'SetResponse': {
      const file = form.get('ResponseFile')
      if (file === null) return { ok: false, message: 'a SetResponse carries a ResponseFile' }
      const read = readResponseFile(file)
      return read.ok ? { ok: true, value: { type, printer, ...read.value } } : read
    }
    case 'SetStatus':
      return { ok: true, value: { type, printer, asb: asbOf(form) } }
    default:
      return { ok: false, message: 'ConnectionType must be GetRequest, SetResponse or SetStatus' }
  }
}

/** The ASB status bits of a `Status` field (a status notification's `statusmonitor` document), or null without one. */
function asbOf(form: URLSearchParams): number | null {
  const asb = /asbstatus\s{0,8}=\s{0,8}"(?:0x)?([0-9a-fA-F]{1,8})"/.exec(form.get('Status') ?? '')?.[1]
  return asb === undefined ? null : parseInt(asb, 16)
}

// Every pattern is bounded: a printer's document is read in time linear in its length, whatever it holds.
const attribute = (tag: string, name: string): string | undefined =>
  new RegExp(`\\s${name}\\s{0,8}=\\s{0,8}"([^"]{0,512})"`, 'i').exec(tag)?.[1]
const text = (xml: string, element: string): string | undefined =>
  new RegExp(`<(?:\\w{1,32}:)?${element}(?:\\s[^>]{0,512})?>([^<]{0,512})</(?:\\w{1,32}:)?${element}>`, 'i')
    .exec(xml)?.[1]
    ?.trim()

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }
const unescape = (value: string) => value.replace(/&(lt|gt|amp|quot|apos);/g, (_, name: string) => ENTITIES[name]!)

/** A `PrintResponseInfo` document: each job's response, or the printer's word that the request itself was refused. */
function readResponseFile(file: string): Parsed<{ responses: SdpResponse[]; requestError: string | null }> {
  if (!/<(?:\w{1,32}:)?PrintResponseInfo\b/.test(file))
    return { ok: false, message: 'the ResponseFile must be a PrintResponseInfo document' }
  const responses: SdpResponse[] = []
  // Version 3.00's word on the request as a whole (ServerDirectPrint, its Response capitalised) is no job's response.
  const server =
    /<(?:\w{1,32}:)?ServerDirectPrint\b[\s\S]{0,4096}?<\/(?:\w{1,32}:)?ServerDirectPrint>/.exec(file)?.[0] ?? ''
  const rest = server ? file.replace(server, '') : file
  // Version 2.00 and later: one ePOSPrint per job, with its printjobid; 1.00: bare responses.
  const jobs = rest.split(/<(?:\w{1,32}:)?ePOSPrint\b/).slice(1)
  const parts = jobs.length > 0 ? jobs : [rest]
  for (const part of parts) {
    const tag = /<(?:\w{1,32}:)?response\s[^>]{0,1024}>/.exec(part)?.[0]
    if (!tag) continue
    const success = attribute(tag, 'success')
    const status = attribute(tag, 'status')
    responses.push({
      printJobId: jobs.length > 0 ? (text(part, 'printjobid') ?? null) : null,
      success: success === 'true' || success === '1',
      code: unescape(attribute(tag, 'code') ?? '').slice(0, 64),
      status: status !== undefined && /^\d{1,10}$/.test(status) ? Number(status) >>> 0 : 0,
    })
    if (responses.length > 64) return { ok: false, message: 'the ResponseFile answers more jobs than were sent' }
  }
  // Version 3.00: the request was refused as a whole (too large, not XML, ePOS-Print off).
  const refused = /<(?:\w{1,32}:)?Response\s[^>]{0,512}Success\s{0,8}=\s{0,8}"(false|0)"/.test(server)
  const requestError = refused
    ? unescape(
        [text(server, 'ErrorSummary'), text(server, 'ErrorDetail')].filter(Boolean).join(': ') ||
          'the printer refused the request',
      ).slice(0, 256)
    : null
  if (responses.length === 0 && requestError === null) return { ok: false, message: 'the ResponseFile has no response' }
  return { ok: true, value: { responses, requestError } }
}

/** The answer to a GetRequest with a job: its bytes as ePOS-Print XML, `printJobId` to be answered with. */
export function printRequestInfo(printJobId: string, bytes: Uint8Array): string {
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<PrintRequestInfo Version="2.00">',
    '<ePOSPrint>',
    `<Parameter><devid>local_printer</devid><timeout>${SDP_PRINT_TIMEOUT_MS}</timeout>` +
      `<printjobid>${printJobId}</printjobid></Parameter>`,
    `<PrintData><epos-print ` +
      `xmlns="${EPOS_PRINT_NAMESPACE}"><command>${Buffer.from(bytes).toString('hex')}</command>` +
      `</epos-print></PrintData>`,
    '</ePOSPrint>',
    '</PrintRequestInfo>',
  ].join('')
}
