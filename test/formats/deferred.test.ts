import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  buildCatalog,
  type Catalog,
  DISCOVER_VIEW,
  fsSourceReader,
  loadSpecsDirectory,
  type SourceReader,
} from '../../src/catalog/index.js'
import { assignNamespaceNames } from '../../src/catalog/wire-name.js'
import {
  deferredUpfront,
  renderClaudeDeferred,
  renderClaudeTools,
  renderOpenAIDeferred,
  renderOpenAITools,
} from '../../src/formats/index.js'
import { fromRoot } from '../helpers/paths.js'
import { sdkTypeErrors } from '../helpers/sdk-types.js'
import { anthropicDeferredRules, openAIDeferredRules } from '../helpers/tool-rules.js'

const onlyFile = (file: string): SourceReader => ({
  listFiles: async () => [file],
  readText: fsSourceReader.readText,
})

const shipped = async () => buildCatalog(await loadSpecsDirectory(fromRoot('specs'), fsSourceReader))
const realWorld = async (file: string) =>
  buildCatalog(await loadSpecsDirectory(fromRoot('test', 'fixtures', 'real-world'), onlyFile(file)))

type Json = Record<string, unknown>

describe('deferred documents on the shipped specs', async () => {
  const catalog = await shipped()

  test('OpenAI: one namespace per service, described by the service, every function deferred, then tool_search', () => {
    const document = renderOpenAIDeferred(catalog, DISCOVER_VIEW) as unknown as Json[]
    assert.deepEqual(openAIDeferredRules(document), [])
    assert.deepEqual(
      document.map((tool) => [tool.type, tool.name]),
      [
        ['namespace', 'billing'],
        ['namespace', 'support'],
        ['namespace', 'tickets'],
        ['tool_search', undefined],
      ],
    )
    const billing = catalog.services.find((s) => s.id === 'billing')!
    assert.equal(document[0]!.description, billing.description?.trim() || billing.title)
    const flat = renderOpenAITools(catalog, DISCOVER_VIEW)
    const inside = document.flatMap((tool) => (tool.tools as Json[] | undefined) ?? [])
    assert.deepEqual(
      inside.map(({ type: _t, defer_loading: _d, ...fn }) => fn),
      flat.map((tool) => tool.function),
      'the same functions as /openai.json',
    )
    assert.deepEqual(
      openAIDeferredRules(renderOpenAIDeferred(catalog, DISCOVER_VIEW, { strict: true }), { strict: true }),
      [],
    )
  })

  test('Anthropic: the BM25 search tool, then every tool of /claude.json deferred', () => {
    const document = renderClaudeDeferred(catalog, DISCOVER_VIEW) as unknown as Json[]
    assert.deepEqual(anthropicDeferredRules(document), [])
    assert.deepEqual(document[0], { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' })
    assert.deepEqual(
      document.slice(1).map(({ defer_loading: _d, ...tool }) => tool),
      renderClaudeTools(catalog, DISCOVER_VIEW),
    )
  })

  test('one service, and a view with no tools', () => {
    const one = renderOpenAIDeferred(catalog, DISCOVER_VIEW, { serviceId: 'tickets' }) as unknown as Json[]
    assert.deepEqual(
      one.map((tool) => tool.type),
      ['namespace', 'tool_search'],
    )
    assert.deepEqual(openAIDeferredRules(one), [])
    assert.deepEqual(
      anthropicDeferredRules(renderClaudeDeferred(catalog, DISCOVER_VIEW, { serviceId: 'tickets' })),
      [],
    )
    assert.deepEqual(renderOpenAIDeferred(catalog, 'no-such-view'), [])
    assert.deepEqual(renderClaudeDeferred(catalog, 'no-such-view'), [])
  })

  test('up front a model holds the namespaces without their functions, or only the search tool', () => {
    assert.deepEqual(deferredUpfront(renderOpenAIDeferred(catalog, DISCOVER_VIEW)), [
      {
        type: 'namespace',
        name: 'billing',
        description: (renderOpenAIDeferred(catalog, DISCOVER_VIEW)[0] as unknown as Json).description,
      },
      {
        type: 'namespace',
        name: 'support',
        description: (renderOpenAIDeferred(catalog, DISCOVER_VIEW)[1] as unknown as Json).description,
      },
      {
        type: 'namespace',
        name: 'tickets',
        description: (renderOpenAIDeferred(catalog, DISCOVER_VIEW)[2] as unknown as Json).description,
      },
      { type: 'tool_search' },
    ])
    assert.deepEqual(deferredUpfront(renderClaudeDeferred(catalog, DISCOVER_VIEW)), [
      { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
    ])
  })
})

describe('namespace names', () => {
  test('the alias as in wire names; reserved, clashing and over-long names made unique and stable', () => {
    const names = assignNamespaceNames([
      { id: 'tickets', alias: 'help.desk' },
      { id: 'a', alias: 'help_desk' },
      { id: 'fs', alias: 'file_search' },
      { id: 'long', alias: 'x'.repeat(80) },
    ])
    assert.equal(names.get('tickets'), 'help_desk')
    assert.match(names.get('a')!, /^help_desk_[0-9a-f]{8}$/)
    assert.equal(names.get('fs'), 'file_search_api')
    assert.ok(names.get('long')!.length <= 64)
    assert.deepEqual(assignNamespaceNames([{ id: 'a', alias: 'help_desk' }]).get('a'), 'help_desk')
    const hostile = assignNamespaceNames(
      ['__proto__', 'constructor', 'toString', '...'].map((id) => ({ id, alias: id })),
    )
    assert.deepEqual([...hostile.values()], ['proto', 'constructor', 'toString', 'service'])
  })
})

describe('a large real-world API (Kubernetes 1.13, 1,002 tools) deferred', async () => {
  const catalog: Catalog = await realWorld('kubernetes-v1.13.json')

  test("both documents keep the providers' rules", () => {
    const openai = renderOpenAIDeferred(catalog, DISCOVER_VIEW)
    assert.deepEqual(openAIDeferredRules(openai), [])
    assert.equal(openai.length, 2)
    const claude = renderClaudeDeferred(catalog, DISCOVER_VIEW)
    assert.deepEqual(anthropicDeferredRules(claude), [])
    assert.equal(claude.length, catalog.views[DISCOVER_VIEW]!.toolIds.length + 1)
  })
})

describe("the SDKs' TypeScript types accept each deferred document", async () => {
  test('openai Responses.Tool[] and @anthropic-ai/sdk Messages.ToolUnion[], shipped specs and Stripe', async () => {
    const catalogs = { shipped: await shipped(), stripe: await realWorld('stripe.json') }
    const documents = Object.entries(catalogs).flatMap(([name, catalog]) => [
      {
        name: `${name}-openai-deferred`,
        type: 'OpenAI.Responses.Tool[]',
        document: renderOpenAIDeferred(catalog, DISCOVER_VIEW),
      },
      {
        name: `${name}-openai-deferred-strict`,
        type: 'OpenAI.Responses.Tool[]',
        document: renderOpenAIDeferred(catalog, DISCOVER_VIEW, { strict: true }),
      },
      {
        name: `${name}-claude-deferred`,
        type: 'Anthropic.Messages.ToolUnion[]',
        document: renderClaudeDeferred(catalog, DISCOVER_VIEW),
      },
    ])
    assert.deepEqual(sdkTypeErrors(documents), [])
  })

  test('the check is not vacuous: a wrong shape is refused by each type', () => {
    const errors = sdkTypeErrors([
      {
        name: 'bad-openai',
        type: 'OpenAI.Responses.Tool[]',
        document: [{ type: 'namespace', name: 'x', tools: [] }],
      },
      {
        name: 'bad-claude',
        type: 'Anthropic.Messages.ToolUnion[]',
        document: [{ name: 'x', defer_loading: 'yes' }],
      },
    ])
    assert.equal(errors.filter((e) => e.startsWith('bad-openai')).length, 1, errors.join('\n'))
    assert.equal(errors.filter((e) => e.startsWith('bad-claude')).length, 1, errors.join('\n'))
  })
})
