// The scale rows' catalog (row 9): one OpenAPI 3.1 document of `operations` operations, generated
// from a seed, so every run builds the same bytes. Shaped as large real APIs are: resources under
// domains, each with list/create on its collection and get/update/delete on its item, path
// parameters (the organization, the item), shared query parameters by $ref, component schemas with
// nested objects and arrays ($ref'd Money, Address and Metadata among them), inline PATCH bodies,
// error answers, and descriptions of a sentence or three.

/** A small, seeded generator (mulberry32): the same seed, the same document. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const DOMAINS: readonly string[] = (
  'billing catalog logistics identity analytics messaging storage compute payments support ' +
  'marketing inventory scheduling compliance networking search media documents hiring ' +
  'payroll fleet energy insurance lending travel events learning health legal procurement ' +
  'security telemetry workflow commerce partners projects reports devices content ledger'
).split(' ')

const NOUNS: readonly string[] = (
  'account invoice line shipment label carrier route user group role policy dashboard ' +
  'metric alert channel template bucket object volume snapshot instance image network ' +
  'subnet gateway certificate key token webhook endpoint subscription plan coupon discount ' +
  'order cart product variant price warehouse stock supplier contract clause ticket comment ' +
  'agent queue campaign audience segment report export job schedule slot booking room ' +
  'vehicle driver trip meter reading tariff claim premium loan payment refund dispute ' +
  'payout transfer balance ledger entry budget project task milestone release build ' +
  'artifact deployment environment secret device sensor firmware course lesson enrollment ' +
  'patient appointment prescription candidate interview offer employee timesheet document ' +
  'folder signature asset playlist episode'
).split(' ')

const ADJECTIVES: readonly string[] = (
  'active archived pending recent shared default primary scheduled failed open closed draft ' +
  'verified expired internal external'
).split(' ')

const STATUSES = [
  ['active', 'paused', 'archived'],
  ['draft', 'open', 'closed', 'void'],
  ['pending', 'running', 'succeeded', 'failed'],
  ['requested', 'approved', 'rejected'],
] as const

type Json = Record<string, unknown>

const pascal = (words: readonly string[]) =>
  words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')
const camel = (words: readonly string[]) => {
  const name = pascal(words)
  return name[0]!.toLowerCase() + name.slice(1)
}

/** Optional fields a resource may carry, each a realistic shape (nested objects, arrays, refs). */
const FIELDS: readonly [string, (noun: string) => Json][] = [
  ['amount', () => ({ $ref: '#/components/schemas/Money' })],
  ['shippingAddress', () => ({ $ref: '#/components/schemas/Address' })],
  ['tags', () => ({ type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 50 })],
  [
    'items',
    (noun) => ({
      type: 'array',
      description: `The lines of the ${noun}.`,
      items: {
        type: 'object',
        required: ['sku', 'quantity'],
        properties: {
          sku: { type: 'string', description: 'Stock keeping unit.' },
          quantity: { type: 'integer', minimum: 1 },
          unitPrice: { $ref: '#/components/schemas/Money' },
          options: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    }),
  ],
  [
    'settings',
    (noun) => ({
      type: 'object',
      description: `How the ${noun} behaves.`,
      properties: {
        enabled: { type: 'boolean', default: true },
        threshold: { type: 'number', minimum: 0, maximum: 1 },
        schedule: {
          type: 'object',
          properties: {
            cron: { type: 'string', description: 'A cron expression, five fields.' },
            timezone: { type: 'string', examples: ['Europe/Paris'] },
          },
        },
        notify: { type: 'array', items: { type: 'string', format: 'email' } },
      },
    }),
  ],
  [
    'contact',
    () => ({
      type: 'object',
      properties: {
        name: { type: 'string' },
        email: { type: 'string', format: 'email' },
        phone: { type: 'string', pattern: '^\\+[0-9]{6,15}$' },
      },
    }),
  ],
  ['priority', () => ({ type: 'integer', minimum: 1, maximum: 5, default: 3 })],
  ['dueDate', () => ({ type: 'string', format: 'date' })],
  ['externalId', (noun) => ({ type: 'string', description: `The ${noun}'s id in the caller's own system.` })],
  [
    'parentId',
    (noun) => ({ type: ['string', 'null'], description: `The ${noun} this one belongs to, if any.` }),
  ],
]

const SHARED_SCHEMAS: Json = {
  Money: {
    type: 'object',
    required: ['amount', 'currency'],
    properties: {
      amount: { type: 'integer', description: 'In the currency’s smallest unit.' },
      currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.' },
    },
  },
  Address: {
    type: 'object',
    required: ['line1', 'country'],
    properties: {
      line1: { type: 'string' },
      line2: { type: 'string' },
      city: { type: 'string' },
      postalCode: { type: 'string' },
      country: { type: 'string', minLength: 2, maxLength: 2 },
      geo: {
        type: 'object',
        properties: { lat: { type: 'number', minimum: -90, maximum: 90 }, lng: { type: 'number' } },
      },
    },
  },
  Metadata: {
    type: 'object',
    readOnly: true,
    properties: {
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
      labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 256 } },
      owner: {
        type: 'object',
        properties: { id: { type: 'string' }, email: { type: 'string', format: 'email' } },
      },
    },
  },
  Error: {
    type: 'object',
    required: ['code', 'message'],
    properties: {
      code: { type: 'string' },
      message: { type: 'string' },
      details: {
        type: 'array',
        items: { type: 'object', properties: { field: { type: 'string' }, issue: { type: 'string' } } },
      },
    },
  },
}

const SHARED_PARAMETERS: Json = {
  OrgId: {
    name: 'orgId',
    in: 'path',
    required: true,
    description: 'The organization that owns the resource.',
    schema: { type: 'string', pattern: '^org_[a-z0-9]{12}$' },
  },
  Limit: {
    name: 'limit',
    in: 'query',
    description: 'Items per page.',
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  },
  Cursor: {
    name: 'cursor',
    in: 'query',
    description: 'The nextCursor of the previous page.',
    schema: { type: 'string' },
  },
}

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
})

export interface ScaleSpec {
  /** The OpenAPI document, to serialize (and change a description of, for a changed reload). */
  readonly document: {
    readonly paths: Record<string, Record<string, { description: string }>>
  } & Json
  /** Search queries in an agent's words, one per resource drawn (deterministic too). */
  readonly queries: readonly string[]
}

/** `operations` operations (five per resource), and `queryCount` search queries over them. */
export function scaleSpec(operations: number, queryCount = 240, seed = 20_000): ScaleSpec {
  const next = random(seed)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!
  const sentence = (noun: string, domain: string) =>
    `${pick(['Each', 'Every', 'A'])} ${pick(ADJECTIVES)} ${noun} of ${domain} keeps its ${pick(NOUNS)} and ${pick(NOUNS)} history; ${pick(['results are paged', 'changes are audited', 'answers are cached for a minute', 'writes are idempotent with an Idempotency-Key'])}.`
  const paths: Record<string, Record<string, Json>> = {}
  const schemas: Json = { ...SHARED_SCHEMAS }
  const resources: { words: string[]; domain: string; plural: string }[] = []
  const names = new Map<string, number>()
  for (let i = 0; i < operations; i++) {
    const r = Math.floor(i / 5)
    if (r === resources.length) {
      const domain = DOMAINS[r % DOMAINS.length]!
      const base = [pick(NOUNS), pick(NOUNS)]
      const key = `${domain}/${base.join('-')}`
      const seen = names.get(key) ?? 0
      names.set(key, seen + 1)
      const words = seen === 0 ? base : [...base, `v${seen + 1}`]
      resources.push({ words, domain, plural: `${words.join('-')}s` })
      const noun = words.join(' ')
      const properties: Json = {
        id: { type: 'string', readOnly: true },
        name: { type: 'string', maxLength: 200, description: `A name for the ${noun}, shown to people.` },
        description: { type: 'string', maxLength: 4000 },
        status: { type: 'string', enum: pick(STATUSES) },
        metadata: { $ref: '#/components/schemas/Metadata' },
      }
      const fieldCount = 2 + Math.floor(next() * 4)
      for (let f = 0; f < fieldCount; f++) {
        const [name, shape] = pick(FIELDS)
        properties[name] = shape(noun)
      }
      schemas[pascal([domain, ...words])] = {
        type: 'object',
        description: `A ${noun} in ${domain}. ${sentence(noun, domain)}`,
        required: ['id', 'name'],
        properties,
      }
    }
    const { words, domain, plural } = resources[r]!
    const noun = words.join(' ')
    const name = pascal([domain, ...words])
    const ref = { $ref: `#/components/schemas/${name}` }
    const json = (schema: unknown) => ({ 'application/json': { schema } })
    const collection = `/v2/${domain}/orgs/{orgId}/${plural}`
    const idName = `${camel(words)}Id`
    const item = `${collection}/{${idName}}`
    const orgId = { $ref: '#/components/parameters/OrgId' }
    const itemId = {
      name: idName,
      in: 'path',
      required: true,
      description: `The ${noun}'s id.`,
      schema: { type: 'string' },
    }
    const tags = [domain]
    switch (i % 5) {
      case 0:
        paths[collection] ??= {}
        paths[collection]!.get = {
          operationId: `${domain}List${pascal(words)}s`,
          summary: `List ${noun}s`,
          description: `Lists the ${noun}s of an organization in ${domain}, newest first. ${sentence(noun, domain)}`,
          tags,
          parameters: [
            orgId,
            { $ref: '#/components/parameters/Limit' },
            { $ref: '#/components/parameters/Cursor' },
            {
              name: 'status',
              in: 'query',
              description: `Only ${noun}s in this state.`,
              schema: { type: 'string' },
            },
            {
              name: 'sort',
              in: 'query',
              schema: { type: 'string', enum: ['createdAt', '-createdAt', 'name', '-name'] },
            },
          ],
          responses: {
            '200': {
              description: `A page of ${noun}s.`,
              content: json({
                type: 'object',
                required: ['data'],
                properties: {
                  data: { type: 'array', items: ref },
                  nextCursor: { type: ['string', 'null'] },
                },
              }),
            },
            '401': error('No valid credentials.'),
          },
        }
        break
      case 1:
        paths[collection] ??= {}
        paths[collection]!.post = {
          operationId: `${domain}Create${pascal(words)}`,
          summary: `Create a ${noun}`,
          description: `Creates a ${noun} in ${domain}. ${sentence(noun, domain)}`,
          tags,
          parameters: [
            orgId,
            { name: 'Idempotency-Key', in: 'header', schema: { type: 'string', maxLength: 255 } },
          ],
          requestBody: { required: true, content: json(ref) },
          responses: {
            '201': { description: `The ${noun}, created.`, content: json(ref) },
            '422': error('The body is not a valid resource.'),
          },
        }
        break
      case 2:
        paths[item] ??= {}
        paths[item]!.get = {
          operationId: `${domain}Get${pascal(words)}`,
          summary: `Get a ${noun}`,
          description: `Returns one ${noun} by its id. ${sentence(noun, domain)}`,
          tags,
          parameters: [
            orgId,
            itemId,
            { name: 'expand', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
          ],
          responses: {
            '200': { description: `The ${noun}.`, content: json(ref) },
            '404': error('No such id.'),
          },
        }
        break
      case 3:
        paths[item] ??= {}
        paths[item]!.patch = {
          operationId: `${domain}Update${pascal(words)}`,
          summary: `Update a ${noun}`,
          description: `Changes the fields given and leaves the others. ${sentence(noun, domain)}`,
          tags,
          parameters: [orgId, itemId],
          requestBody: {
            required: true,
            content: json({
              type: 'object',
              minProperties: 1,
              properties: {
                name: { type: 'string', maxLength: 200 },
                description: { type: 'string' },
                status: { type: 'string' },
                metadata: {
                  type: 'object',
                  properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
                },
              },
            }),
          },
          responses: {
            '200': { description: `The ${noun}, updated.`, content: json(ref) },
            '404': error('No such id.'),
          },
        }
        break
      default:
        paths[item] ??= {}
        paths[item]!.delete = {
          operationId: `${domain}Delete${pascal(words)}`,
          summary: `Delete a ${noun}`,
          description: `Deletes a ${noun}; it cannot be undone. ${sentence(noun, domain)}`,
          tags,
          parameters: [orgId, itemId],
          responses: { '204': { description: 'Deleted.' }, '404': error('No such id.') },
        }
    }
  }
  const queries: string[] = []
  for (let q = 0; q < queryCount; q++) {
    const { words, domain } = pick(resources)
    const noun = words.filter((word) => !/^v\d+$/.test(word)).join(' ')
    queries.push(
      pick([
        `list the ${noun}s`,
        `create a new ${noun} in ${domain}`,
        `delete ${noun}`,
        `update the status of a ${noun}`,
        `find ${pick(ADJECTIVES)} ${noun}s`,
        `get one ${noun} by id`,
      ]),
    )
  }
  return {
    document: {
      openapi: '3.1.0',
      info: { title: 'Scale API', version: '1.0.0', description: 'A generated API at limits.operations.' },
      servers: [{ url: 'http://127.0.0.1:9' }],
      tags: DOMAINS.map((name) => ({ name, description: `Everything about ${name}.` })),
      paths: paths as ScaleSpec['document']['paths'],
      components: { schemas, parameters: SHARED_PARAMETERS },
    },
    queries,
  }
}
