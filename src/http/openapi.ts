// What both OpenAPI documents the hub serves say alike (the public API's, /openapi.json, and the admin API's,
// /admin/v1/openapi.json): the OpenAPI version, the licence, and the server, which is whichever hub serves them.

export const OPENAPI_VERSION = '3.1.0'

export const OPENAPI_LICENSE = { name: 'MIT', identifier: 'MIT' } as const

/** Each venue's hub has its own address: the operations are relative to the hub that serves the document. */
export const OPENAPI_SERVERS = [
  {
    url: '/',
    description:
      'The hub that serves this document, at its address on the venue network (e.g. http://192.168.1.20:8080)',
  },
] as const
