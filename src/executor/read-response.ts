import type { Readable } from 'node:stream'
import type { UpstreamBody } from './types.js'

export class ResponseTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`response larger than ${limit} bytes`)
  }
}

/** Reads a body up to `limit` bytes; past it the stream is destroyed and ResponseTooLarge thrown. */
export async function readLimited(body: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of body) {
    total += (chunk as Buffer).length
    if (total > limit) {
      body.destroy()
      throw new ResponseTooLarge(limit)
    }
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

const TEXTUAL = /^(text\/|application\/(xml|javascript|x-www-form-urlencoded|[\w.+-]+\+xml)\b)/i
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\b/i

/** JSON stays JSON, text stays text, anything else is base64 with its content type (SPEC §3 step 6). */
export function typeBody(bytes: Buffer, contentType: string | undefined, status: number): UpstreamBody {
  if (bytes.length === 0 || status === 204 || status === 205 || status === 304) return { type: 'empty' }
  const type = contentType ?? 'application/octet-stream'
  if (JSON_TYPE.test(type)) return { type: 'json', bytes, contentType: type }
  if (TEXTUAL.test(type)) return { type: 'text', text: bytes.toString('utf8'), contentType: type }
  return { type: 'binary', base64: bytes.toString('base64'), contentType: type, bytes: bytes.length }
}
