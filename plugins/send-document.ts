import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ContentEncoding, Servable } from '../src/formats/index.js'

/**
 * Sends a precomputed document: 304 on a matching If-None-Match, else the bytes, brotli or
 * gzip when the client accepts it and the document has it. Nothing is serialized or hashed per
 * request; a compressed form is made once, the first requests for a large one waiting for it
 * while it is made off the event loop.
 */
export function sendDocument(request: FastifyRequest, reply: FastifyReply, document: Servable): FastifyReply {
  reply.header('etag', document.etag)
  // Kept: open mode's operator routes vary by Origin too (plugins/access.ts).
  const vary = reply.getHeader('vary')
  reply.header('vary', vary === undefined ? 'Accept-Encoding' : `${vary}, Accept-Encoding`)
  if (matchesEtag(request.headers['if-none-match'], document.etag)) return reply.code(304).send()
  reply.type(document.contentType)
  const encoding = chooseEncoding(request.headers['accept-encoding'], document.encodings)
  if (!encoding) return reply.send(document.plain())
  reply.header('Content-Encoding', encoding)
  const bytes = document.encoded(encoding)
  if (Buffer.isBuffer(bytes)) return reply.send(bytes)
  bytes.then(
    (ready) => reply.send(ready),
    (err: Error) => reply.removeHeader('Content-Encoding').send(err),
  )
  return reply
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false
  // A client sends back the one ETag it was given: no split for that.
  if (header === etag) return true
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '')
    return tag === etag || tag === '*'
  })
}

/**
 * br, else gzip, of those `offered`, honouring q-values (`gzip;q=0` refuses gzip); identity when
 * none is accepted.
 */
export function chooseEncoding(
  header: string | undefined,
  offered: readonly ContentEncoding[] = ['br', 'gzip'],
): ContentEncoding | undefined {
  if (!header) return undefined
  const accepted = new Map<string, number>()
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    accepted.set(name.trim(), q ? Number(q.slice(2)) || 0 : 1)
  }
  const quality = (name: ContentEncoding) =>
    offered.includes(name) ? (accepted.get(name) ?? accepted.get('*') ?? 0) : 0
  if (quality('br') > 0 && quality('br') >= quality('gzip')) return 'br'
  if (quality('gzip') > 0) return 'gzip'
  return undefined
}
