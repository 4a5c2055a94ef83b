// The edge where Epson printers with Server Direct Print come for their jobs, at exactly
// `POST /epson-sdp`: form fields, answered with a PrintRequestInfo document (a job), or nothing.
// No key: a printer is known by its ID (or Name), and only one a technician adopted is offered
// jobs. Every answer to bad input is a 4xx and changes nothing.
import { Elysia } from 'elysia'
import { ApiError, invalidField } from '../http/errors.ts'
import { remoteAddress } from '../http/failure-rate-limit.ts'
import { readFormBody } from '../http/json-body.ts'
import { EPSON_SDP_PATH, MAX_SDP_FORM_BYTES } from '../protocol/epson-sdp.ts'
import type { EpsonSdp } from '../transports/epson-sdp.ts'

const XML = { 'content-type': 'text/xml; charset=utf-8', 'cache-control': 'no-store' }

/**
 * The form's fields. A printer set not to URL-encode sends its ResponseFile as it is, an XML
 * document whose `&` and `+` a form parser would take apart: it is then taken whole, as the last field.
 */
function formOf(body: string): URLSearchParams {
  const raw = /(?:^|&)ResponseFile=(<[\s\S]*)$/.exec(body)
  const form = new URLSearchParams(raw ? body.slice(0, raw.index) : body)
  if (raw) form.set('ResponseFile', raw[1]!)
  return form
}

export function epsonSdpRoutes(epsonSdp: EpsonSdp) {
  return new Elysia().post(
    EPSON_SDP_PATH,
    async ({ request, server }) => {
      const address = remoteAddress(request, server)
      const body = await readFormBody(request, MAX_SDP_FORM_BYTES, `epson-sdp:${address}`)
      const answer = await epsonSdp.post(formOf(body), address)
      if (!answer.ok)
        throw answer.status === 400
          ? invalidField('body', answer.message, `This is not a Server Direct Print request: ${answer.message}.`)
          : new ApiError('not_found', answer.message)
      return new Response(answer.xml, { headers: XML })
    },
    { parse: 'none' },
  )
}
