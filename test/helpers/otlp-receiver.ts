import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One exported span as OTLP/JSON encodes it, its attributes flattened to plain values. */
export interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string
  readonly name: string
  readonly kind: number
  readonly attributes: Readonly<Record<string, string | number | boolean>>
  readonly service: string
}

/** How the receiver answers: as a collector should, refusing (503), or never (a hung collector). */
export type ReceiverMode = 'accept' | 'refuse' | 'hang'

export interface OtlpReceiver {
  readonly url: string
  /** Every request body as received: what "no secret in any exported byte" is checked against. */
  readonly bodies: Buffer[]
  spans(): ReceivedSpan[]
  /** Resolves once spans matching `found` have arrived (bounded by the caller's test timeout). */
  waitFor(found: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]>
  mode: ReceiverMode
  close(): Promise<void>
}

type AnyValue = {
  stringValue?: string
  intValue?: string | number
  boolValue?: boolean
  doubleValue?: number
}
interface OtlpJson {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: AnyValue }[] }
    scopeSpans?: {
      spans?: {
        traceId: string
        spanId: string
        parentSpanId?: string
        name: string
        kind: number
        attributes?: { key: string; value: AnyValue }[]
      }[]
    }[]
  }[]
}

/**
 * A real OTLP/HTTP receiver on 127.0.0.1 (POST /v1/traces), decoding what the SDK's exporter sends
 * with OTEL_EXPORTER_OTLP_PROTOCOL=http/json — the OTLP/JSON encoding, IDs in hex.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: Buffer[] = []
  const decoded: ReceivedSpan[] = []
  const waiters = new Set<() => void>()
  const hung = new Set<ServerResponse>()
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    bodies.push(body)
    if (receiver.mode === 'hang') {
      hung.add(response)
      return
    }
    if (receiver.mode === 'refuse' || request.url !== '/v1/traces') {
      response.writeHead(503, { 'content-type': 'application/json' }).end('{}')
      return
    }
    decoded.push(...decode(JSON.parse(body.toString('utf8')) as OtlpJson))
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    for (const wake of waiters) wake()
  }
  const server = createServer((request, response) => void handle(request, response))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  const receiver: OtlpReceiver = {
    url: `http://127.0.0.1:${port}`,
    bodies,
    spans: () => [...decoded],
    mode: 'accept',
    waitFor: (found) =>
      new Promise((resolve) => {
        const check = () => {
          if (!found(decoded)) return
          waiters.delete(check)
          resolve([...decoded])
        }
        waiters.add(check)
        check()
      }),
    close: async () => {
      for (const response of hung) response.destroy()
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
  return receiver
}

function decode(json: OtlpJson): ReceivedSpan[] {
  const spans: ReceivedSpan[] = []
  for (const resourceSpans of json.resourceSpans ?? []) {
    const resource = flatten(resourceSpans.resource?.attributes)
    for (const scope of resourceSpans.scopeSpans ?? [])
      for (const span of scope.spans ?? [])
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
          attributes: flatten(span.attributes),
          service: String(resource['service.name'] ?? ''),
        })
  }
  return spans
}

function flatten(
  attributes: { key: string; value: AnyValue }[] = [],
): Record<string, string | number | boolean> {
  const flat: Record<string, string | number | boolean> = {}
  for (const { key, value } of attributes)
    flat[key] = value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue)
  return flat
}
