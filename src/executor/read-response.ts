import { promisify } from 'node:util'
import { brotliDecompress, gunzip, inflate, inflateRaw } from 'node:zlib'
import type { UpstreamBody } from './types.js'

export class ResponseTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`response larger than ${limit} bytes`)
  }
}

/** An answer the gateway cannot relay as what it claims to be (issue 14 class 10). */
export class ResponseInvalid extends Error {}

type Decoder = (bytes: Buffer, options: { maxOutputLength: number }) => Promise<Buffer>

const gunzipAsync = promisify(gunzip) as Decoder
const inflateAsync = promisify(inflate) as Decoder
const inflateRawAsync = promisify(inflateRaw) as Decoder
const brotliAsync = promisify(brotliDecompress) as Decoder

/** `deflate` is zlib-wrapped by the RFC, raw by many servers: a zlib header (CMF/FLG) tells which. */
const inflateEither: Decoder = (bytes, options) =>
  bytes.length >= 2 && (bytes[0]! & 0x0f) === 8 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0
    ? inflateAsync(bytes, options)
    : inflateRawAsync(bytes, options)

const DECODERS: Readonly<Record<string, Decoder>> = {
  gzip: gunzipAsync,
  'x-gzip': gunzipAsync,
  deflate: inflateEither,
  br: brotliAsync,
}

/**
 * The body as its `content-encoding` says it was encoded, decoded in reverse order (`gzip, br` is
 * brotli of gzip), in the thread pool, each step's output capped at `limit` — so a decompression
 * bomb costs no more than the cap and ends as ResponseTooLarge. An encoding the gateway does not
 * decode, or bytes that do not decode, are ResponseInvalid.
 */
export async function decodeBody(
  bytes: Buffer,
  contentEncoding: string | string[] | undefined,
  limit: number,
): Promise<Buffer> {
  if (contentEncoding === undefined || bytes.length === 0) return bytes
  const codings = [contentEncoding]
    .flat()
    .flatMap((value) => value.split(','))
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
  let decoded = bytes
  for (const coding of codings.reverse()) {
    const decoder = Object.hasOwn(DECODERS, coding) ? DECODERS[coding] : undefined
    if (!decoder)
      throw new ResponseInvalid(
        `content-encoding ${JSON.stringify(coding.slice(0, 40))} is not one the gateway decodes (gzip, deflate, br)`,
      )
    try {
      decoded = await decoder(decoded, { maxOutputLength: limit })
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new ResponseTooLarge(limit)
      throw new ResponseInvalid(`its ${coding} body does not decode: ${(err as Error).message}`)
    }
  }
  return decoded
}

const TEXTUAL = /^(text\/|application\/(xml|javascript|x-www-form-urlencoded|[\w.+-]+\+xml)\b)/i
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\b/i
const BOM = Buffer.from([0xef, 0xbb, 0xbf])

/**
 * A body labelled JSON must be JSON, else ResponseInvalid; a UTF-8 byte order mark is dropped.
 * Other bodies are returned as they are.
 */
export function checkJson(bytes: Buffer, contentType: string | undefined): Buffer {
  if (bytes.length === 0 || contentType === undefined || !JSON_TYPE.test(contentType)) return bytes
  const bom = bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2]
  const json = bom ? bytes.subarray(3) : bytes
  try {
    JSON.parse(json.toString('utf8'))
  } catch (err) {
    throw new ResponseInvalid(
      `it is labelled ${contentType.split(';')[0]} but the body is not JSON (${(err as Error).message.slice(0, 120)})`,
    )
  }
  return json
}

/** JSON stays JSON, text stays text, anything else is base64 with its content type (SPEC §3 step 6). */
export function typeBody(bytes: Buffer, contentType: string | undefined, status: number): UpstreamBody {
  if (bytes.length === 0 || status === 204 || status === 205 || status === 304) return { type: 'empty' }
  const type = contentType ?? 'application/octet-stream'
  if (JSON_TYPE.test(type)) return { type: 'json', bytes, contentType: type }
  if (TEXTUAL.test(type)) return { type: 'text', text: bytes.toString('utf8'), contentType: type }
  return { type: 'binary', base64: bytes.toString('base64'), contentType: type, bytes: bytes.length }
}
