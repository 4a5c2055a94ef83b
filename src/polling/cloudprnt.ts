// The edge where Star CloudPRNT printers come for their jobs, at exactly `/cloudprnt`: a poll
// (POST, JSON), a job fetch (GET with mac, type and token), a confirmation (DELETE with mac,
// code and token; or a GET with `delete`, which printhub never asks for but a printer set so may
// send). No key: a printer is known by its MAC address, and only one a technician adopted is
// offered jobs. Every answer to bad input is a 4xx and changes nothing.
import { Elysia } from 'elysia'
import { ApiError, invalidField } from '../http/errors.ts'
import { remoteAddress } from '../http/failure-rate-limit.ts'
import { readJsonBody } from '../http/json-body.ts'
import { QueryReader } from '../http/query.ts'
import { CLOUDPRNT_PATH, MAX_POLL_BYTES } from '../protocol/cloudprnt.ts'
import type { CloudPrnt } from '../transports/cloudprnt.ts'

/** The query parameters a printer sends: `uid` (an ID the server may give it) and `retry` are let be. */
const FETCH_QUERY = ['mac', 'type', 'token', 'uid', 'mono_len', '24bpp_len', 'delete', 'code', 'retry'] as const
const CONFIRM_QUERY = ['mac', 'code', 'token', 'uid', 'retry'] as const
/** The longest value of a query parameter printhub reads. */
const MAX_PARAMETER = 128

function parameters(
  request: Request,
  allowed: readonly string[],
): Record<'mac' | 'type' | 'token' | 'code' | 'delete', string | undefined> {
  const query = new QueryReader(request.url, allowed)
  const read = (name: string) => {
    const value = query.text(name, { once: true })
    if (value !== undefined && value.length > MAX_PARAMETER)
      query.problem(name, `must be at most ${MAX_PARAMETER} characters long`)
    return value
  }
  const values = {
    mac: read('mac'),
    type: read('type'),
    token: read('token'),
    code: read('code'),
    delete: read('delete'),
  }
  query.check()
  return values
}

function answer(outcome: { status: 200 } | { status: 400 | 404 | 415; message: string }): Response | { ok: true } {
  if (outcome.status === 200) return { ok: true }
  if (outcome.status === 400) throw invalidField('query', outcome.message, outcome.message)
  throw new ApiError(outcome.status === 404 ? 'not_found' : 'unsupported_media_type', outcome.message)
}

export function cloudPrntRoutes(cloudPrnt: CloudPrnt) {
  return new Elysia()
    .post(
      CLOUDPRNT_PATH,
      async ({ request, server }) => {
        const address = remoteAddress(request, server)
        const body = await readJsonBody(request, MAX_POLL_BYTES, `cloudprnt:${address}`)
        const polled = cloudPrnt.poll(body, address)
        if (!polled.ok) throw invalidField('body', polled.message, `This is not a CloudPRNT poll: ${polled.message}.`)
        return polled.value
      },
      { parse: 'none' },
    )
    .get(CLOUDPRNT_PATH, async ({ request, server }) => {
      const query = parameters(request, FETCH_QUERY)
      const address = remoteAddress(request, server)
      // A confirmation sent as a GET (`deleteMethod: GET`).
      if (query.delete !== undefined) return answer(cloudPrnt.confirm(query.mac, query.code, query.token, address))
      const fetched = await cloudPrnt.fetch(query.mac, query.type, query.token, address)
      if (fetched.status !== 200) return answer(fetched)
      return new Response(fetched.body as Uint8Array<ArrayBuffer>, {
        headers: { 'content-type': fetched.type, 'cache-control': 'no-store' },
      })
    })
    .delete(CLOUDPRNT_PATH, ({ request, server }) => {
      const query = parameters(request, CONFIRM_QUERY)
      return answer(cloudPrnt.confirm(query.mac, query.code, query.token, remoteAddress(request, server)))
    })
}
