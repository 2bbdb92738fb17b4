// Issue 17 class 2, end to end: a body composed with allOf (references, a recursive member, nested
// allOf, a property two members constrain) is offered as flat arguments, and those arguments reach a
// real upstream as the one JSON (or form) body the source document describes.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { buildCatalog, loadSpecsDirectory } from '../../src/catalog/index.js'
import { executorFor } from '../helpers/executor.js'
import { MEMORY_DIR, memoryReader, ok, openapi } from '../helpers/memory-catalog.js'
import { createRequestValidator } from '../helpers/openapi-request-validator.js'
import { startUpstream } from '../helpers/upstreams.js'

const document = openapi(
  {
    '/designs': {
      post: {
        operationId: 'post_designs',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/design-input' } } },
        },
        responses: ok,
      },
    },
    '/queue': {
      post: {
        operationId: 'send_message',
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                allOf: [
                  { $ref: '#/components/schemas/action' },
                  {
                    type: 'object',
                    properties: { QueueUrl: { type: 'string' }, DelaySeconds: { type: 'integer' } },
                    required: ['QueueUrl'],
                  },
                ],
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
      schemas: {
        'design-input': {
          allOf: [
            { $ref: '#/components/schemas/design-duplicate-input' },
            { $ref: '#/components/schemas/design-common-fields' },
            {
              type: 'object',
              properties: {
                html_content: { type: 'string', maxLength: 1048576 },
                plain_content: { type: 'string' },
              },
              required: ['html_content'],
            },
          ],
        },
        'design-duplicate-input': {
          type: 'object',
          properties: {
            name: { type: 'string', maxLength: 100, default: 'My Design' },
            editor: { enum: ['code', 'design'] },
          },
        },
        'design-common-fields': {
          allOf: [
            {
              type: 'object',
              properties: { name: { type: 'string', minLength: 1 }, subject: { type: 'string' } },
            },
            { type: 'object', properties: { folder: { $ref: '#/components/schemas/folder' } } },
          ],
        },
        folder: {
          type: 'object',
          properties: { id: { type: 'string' }, parent: { $ref: '#/components/schemas/folder' } },
          required: ['id'],
        },
        action: { type: 'object', properties: { Action: { enum: ['SendMessage'] } }, required: ['Action'] },
      },
    },
  },
)

describe('an allOf body round trip', () => {
  test('merged arguments arrive as the JSON body the spec describes; a form body as its fields', async (t) => {
    const loaded = await loadSpecsDirectory(MEMORY_DIR, memoryReader({ 'mail.json': document }))
    const catalog = buildCatalog(loaded)
    const design = catalog.tools.find((tool) => tool.id === 'mail:post_designs')!
    assert.deepEqual(Object.keys(design.binding.arguments).sort(), [
      'editor',
      'folder',
      'html_content',
      'name',
      'plain_content',
      'subject',
    ])
    assert.deepEqual(design.inputSchema.required, ['html_content'])
    const validator = createRequestValidator(loaded.sources[0]!.document)
    const upstream = await startUpstream(t)
    const { call } = executorFor(t, catalog, { services: { mail: { upstream: upstream.url } } })

    const args = {
      name: 'Welcome',
      editor: 'code',
      subject: 'Hello',
      folder: { id: 'f1', parent: { id: 'f0' } },
      html_content: '<p>Hi</p>',
    }
    const outcome = await call('mail:post_designs', args, { approval: design.wireName })
    assert.equal(outcome.status, 200, JSON.stringify(outcome))
    const received = upstream.received.at(-1)!
    assert.equal(received.headers['content-type'], 'application/json')
    assert.deepEqual(JSON.parse(received.body.toString()), args)
    assert.deepEqual(await validator.check(design.pointer, design.rawPath, design.method, received), [])

    const refused = await call('mail:post_designs', { name: '' }, { approval: design.wireName })
    assert.equal(refused.kind, 'refusal', 'html_content is required and name has minLength 1 from the merge')

    const send = catalog.tools.find((tool) => tool.id === 'mail:send_message')!
    const sent = await call(
      'mail:send_message',
      { Action: 'SendMessage', QueueUrl: 'q/1', DelaySeconds: 5 },
      {
        approval: send.wireName,
      },
    )
    assert.equal(sent.status, 200, JSON.stringify(sent))
    const form = upstream.received.at(-1)!
    assert.equal(form.body.toString(), 'Action=SendMessage&QueueUrl=q%2F1&DelaySeconds=5')
    assert.deepEqual(await validator.check(send.pointer, send.rawPath, send.method, form), [])
  })
})
