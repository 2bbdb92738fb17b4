import { ok, openapi } from './memory-catalog.js'

/** Every parameter location and style the encoders have, plus credentials in query, cookie and header. */
export const PROBE_SPEC = openapi(
  {
    '/items/{id}': {
      post: {
        operationId: 'probe',
        security: [{ keyQuery: [], keyCookie: [], keyHeader: [] }],
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
          // Specs often declare the credential as a parameter too.
          { name: 'api_key', in: 'query', schema: { type: 'string' } },
          { name: 'count', in: 'query', schema: { type: 'integer' } },
          {
            name: 'filter',
            in: 'query',
            style: 'form',
            explode: true,
            schema: { type: 'object', additionalProperties: { type: 'string' } },
          },
          { name: 'deep', in: 'query', style: 'deepObject', explode: true, schema: { type: 'object' } },
          { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
          {
            name: 'X-Meta',
            in: 'header',
            explode: true,
            schema: { type: 'object', additionalProperties: { type: 'string' } },
          },
          { name: 'pref', in: 'cookie', schema: { type: 'string' } },
          { name: 'sid', in: 'cookie', schema: { type: 'string' } },
          {
            name: 'jar',
            in: 'cookie',
            explode: true,
            schema: { type: 'object', additionalProperties: { type: 'string' } },
          },
        ],
        requestBody: {
          content: {
            'application/json': {
              schema: { type: 'object', properties: { note: { type: 'string' }, data: {} } },
            },
          },
        },
        responses: ok,
      },
    },
    '/forms': {
      post: {
        operationId: 'form',
        security: [{ keyQuery: [] }],
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                properties: { text: { type: 'string' }, nested: { type: 'object' } },
              },
            },
          },
        },
        responses: ok,
      },
    },
  },
  {
    components: {
      securitySchemes: {
        keyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
        keyCookie: { type: 'apiKey', in: 'cookie', name: 'sid' },
        keyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      },
    },
  },
)
