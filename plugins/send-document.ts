import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ContentEncoding, ServedDocument } from '../src/formats/index.js'

/**
 * Sends a precomputed document: 304 on a matching If-None-Match, else the bytes, brotli or
 * gzip when the client accepts it. Nothing is serialized, hashed or compressed per request.
 */
export function sendDocument(
  request: FastifyRequest,
  reply: FastifyReply,
  document: ServedDocument,
): FastifyReply {
  reply.header('etag', document.etag)
  reply.header('vary', 'Accept-Encoding')
  if (matchesEtag(request.headers['if-none-match'], document.etag)) return reply.code(304).send()
  reply.type(document.contentType)
  const encoding = chooseEncoding(request.headers['accept-encoding'])
  if (!encoding) return reply.send(document.body)
  reply.header('Content-Encoding', encoding)
  return reply.send(document.encoded(encoding))
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

/** br, else gzip, honouring q-values (`gzip;q=0` refuses gzip); identity when neither is accepted. */
export function chooseEncoding(header: string | undefined): ContentEncoding | undefined {
  if (!header) return undefined
  const accepted = new Map<string, number>()
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    accepted.set(name.trim(), q ? Number(q.slice(2)) || 0 : 1)
  }
  const quality = (name: ContentEncoding) => accepted.get(name) ?? accepted.get('*') ?? 0
  if (quality('br') > 0 && quality('br') >= quality('gzip')) return 'br'
  if (quality('gzip') > 0) return 'gzip'
  return undefined
}
