import type { FormData } from 'undici'
import type { UpstreamRequest } from './build-request.js'
import { isJson } from './encode-body.js'
import type { PreviewBody, PreviewPart, RequestPreview } from './types.js'

const isTextual = (type: string) => isJson(type) || /^text\//i.test(type)

/** A built request as a dry run shows it: the URL undici is given, the headers, the body typed. */
export async function previewRequest(request: UpstreamRequest): Promise<RequestPreview> {
  return {
    method: request.method,
    url: `${request.origin}${request.path}`,
    headers: { ...request.headers },
    body: await previewBody(request.body, request.headers['content-type'] ?? ''),
  }
}

async function previewBody(body: UpstreamRequest['body'], contentType: string): Promise<PreviewBody | null> {
  if (body === undefined) return null
  if (Buffer.isBuffer(body)) return { type: 'binary', bytes: body.length, base64: body.toString('base64') }
  if (typeof body !== 'string') return { type: 'multipart', parts: await previewParts(body) }
  if (!isJson(contentType)) return { type: 'text', text: body }
  try {
    return { type: 'json', value: JSON.parse(body) }
  } catch {
    return { type: 'text', text: body }
  }
}

/** Each part as undici will write it: a Blob without a file name goes out as `blob`. */
async function previewParts(form: FormData): Promise<PreviewPart[]> {
  const parts: PreviewPart[] = []
  for (const [name, value] of form) {
    if (typeof value === 'string') {
      parts.push({ name, value })
      continue
    }
    const bytes = Buffer.from(await value.arrayBuffer())
    const file = { name, filename: value.name, contentType: value.type, bytes: bytes.length }
    parts.push(
      isTextual(value.type)
        ? { ...file, text: bytes.toString('utf8') }
        : { ...file, base64: bytes.toString('base64') },
    )
  }
  return parts
}
