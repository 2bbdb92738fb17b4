/**
 * A large, plausible OpenAPI 3.1 document as JSON text, generated instead of committed (issue 14,
 * class 7): `operations` operations over paths `/resources<k>/{id}` (get, put, delete) and
 * `/resources<k>` (post), each with a summary, a description, path and query parameters, and
 * bodies that reference one of a few hundred component schemas. About 580 bytes per operation:
 * 103,000 operations weigh about 60 MB, the size of the spec that stalled the gateway.
 */
export function largeSpec(operations: number, title = 'Large API'): string {
  const schemaCount = Math.max(1, Math.min(500, Math.ceil(operations / 200)))
  const schemas: Record<string, unknown> = {}
  for (let s = 0; s < schemaCount; s++)
    schemas[`Resource${s}`] = {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', description: `The name of resource kind ${s}.` },
        size: { type: 'integer', minimum: 0 },
        labels: { type: 'array', items: { type: 'string' } },
        state: { type: 'string', enum: ['active', 'paused', 'archived'] },
      },
    }
  const paths: Record<string, Record<string, unknown>> = {}
  const methods = ['get', 'put', 'delete', 'post'] as const
  for (let i = 0; i < operations; i++) {
    const k = Math.floor(i / methods.length)
    const method = methods[i % methods.length]!
    const path = method === 'post' ? `/resources${k}` : `/resources${k}/{id}`
    const ref = { $ref: `#/components/schemas/Resource${k % schemaCount}` }
    const operation: Record<string, unknown> = {
      operationId: `${method}Resource${k}`,
      summary: `${method.toUpperCase()} resource ${k}`,
      description: `Operates on resource kind ${k} of the large generated API; the description is long enough to look like the ones real specs carry.`,
      tags: [`group${k % 50}`],
      responses: { '200': { description: 'ok', content: { 'application/json': { schema: ref } } } },
    }
    if (method !== 'post')
      operation.parameters = [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'fields', in: 'query', schema: { type: 'string' }, description: 'fields to return' },
      ]
    if (method === 'put' || method === 'post')
      operation.requestBody = { required: true, content: { 'application/json': { schema: ref } } }
    paths[path] ??= {}
    paths[path][method] = operation
  }
  return JSON.stringify({
    openapi: '3.1.0',
    info: { title, version: '1.0.0' },
    servers: [{ url: 'http://127.0.0.1:9' }],
    paths,
    components: { schemas },
  })
}
