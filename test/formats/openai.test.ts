import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { buildCatalog, DISCOVER_VIEW, fsSourceReader, loadSpecsDirectory } from '../../src/catalog/index.js'
import { repairArguments } from '../../src/executor/repair-arguments.js'
import { renderClaudeTools, renderOpenAITools } from '../../src/formats/openai.js'
import { fromRoot } from '../helpers/paths.js'
import { anthropicRules, openAIRules, openAIStrictRules } from '../helpers/tool-rules.js'

interface Json {
  properties: Record<string, Record<string, unknown>>
  required?: string[]
}

describe('seed 002 mapping on the shipped specs', async () => {
  const catalog = buildCatalog(await loadSpecsDirectory(fromRoot('specs'), fsSourceReader))
  const tools = renderOpenAITools(catalog, DISCOVER_VIEW)
  const byName = (name: string) => tools.find((tool) => tool.function.name === name)!.function

  test('names are the wire names; descriptions carry summary and x-price', () => {
    assert.deepEqual(
      tools.map((t) => t.function.name),
      catalog.views.discover!.toolIds.map((id) => catalog.tools.find((t) => t.id === id)!.wireName),
    )
    assert.match(
      byName('billing_create_invoice').description,
      /^Create an invoice\..*Price: \$0\.05\/invoice\.$/,
    )
    assert.match(byName('tickets_search_tickets').description, /Price: \$0\.002\/query\.$/)
  })

  test('enums stay enums, defaults are said in the description, path parameters required, body flattened', () => {
    const list = byName('tickets_list_tickets').parameters as unknown as Json
    assert.deepEqual(list.properties.status!.enum, ['open', 'pending', 'closed'])
    assert.match(String(list.properties.status!.description), /Default: open\./)
    assert.equal('default' in list.properties.status!, false)
    const comment = byName('tickets_add_comment').parameters as unknown as Json
    assert.ok((comment.required ?? []).includes('ticketId'))
    const invoice = byName('billing_create_invoice').parameters as unknown as Json
    assert.deepEqual(Object.keys(invoice.properties).sort(), [
      'currency',
      'customer_id',
      'due_date',
      'lines',
      'metadata',
    ])
  })

  test('Claude: the same names and input schemas as input_schema, no $ref (recursive Comment unrolled)', () => {
    const claude = renderClaudeTools(catalog, DISCOVER_VIEW)
    assert.deepEqual(
      claude.map((t) => t.name),
      tools.map((t) => t.function.name),
    )
    assert.doesNotMatch(JSON.stringify(claude), /"\$ref"/)
    assert.deepEqual(anthropicRules(claude), [])
  })
})

describe('strict mode keeps every tool and which arguments were optional', () => {
  test('optional → nullable and described; null and JSON text come back to the canonical arguments', async () => {
    const catalog = buildCatalog(await loadSpecsDirectory(fromRoot('specs'), fsSourceReader))
    const strict = renderOpenAITools(catalog, DISCOVER_VIEW, { strict: true })
    for (const tool of strict) {
      const canonical = catalog.tools.find((t) => t.wireName === tool.function.name)!.inputSchema
      const optional = Object.keys(canonical.properties as object).filter(
        (k) => !(canonical.required as string[] | undefined)?.includes(k),
      )
      const properties = (tool.function.parameters as unknown as Json).properties
      for (const name of optional) {
        assert.match(
          String(properties[name]!.description),
          /Optional: null leaves it out\.$/,
          `${tool.function.name}.${name}`,
        )
      }
    }
    const invoice = catalog.tools.find((t) => t.id === 'billing:createInvoice')!
    const strictArgs = {
      customer_id: 'CUS-1',
      currency: 'EUR',
      due_date: null,
      lines: [{ description: 'x', quantity: 1, unit_price: 2 }],
      metadata: '{"po":"7"}',
    }
    assert.deepEqual(repairArguments(invoice.inputSchema, strictArgs), {
      customer_id: 'CUS-1',
      currency: 'EUR',
      lines: [{ description: 'x', quantity: 1, unit_price: 2 }],
      metadata: { po: '7' },
    })
  })
})

describe('every operation of the real-world specs, in all three documents', () => {
  const dir = fromRoot('test', 'fixtures', 'real-world')
  const corpus = JSON.parse(readFileSync(`${dir}/index.json`, 'utf8')) as {
    file: string
    operations: number
  }[]
  let total = 0
  for (const { file, operations } of corpus) {
    test(`${file}: ${operations} tools, OpenAI, OpenAI strict and Claude documents all valid`, async () => {
      const catalog = buildCatalog(
        await loadSpecsDirectory(dir, { listFiles: async () => [file], readText: fsSourceReader.readText }),
      )
      const openai = renderOpenAITools(catalog, DISCOVER_VIEW)
      const strict = renderOpenAITools(catalog, DISCOVER_VIEW, { strict: true })
      const claude = renderClaudeTools(catalog, DISCOVER_VIEW)
      assert.equal(openai.length, operations)
      assert.equal(strict.length, operations)
      assert.equal(claude.length, operations)
      assert.deepEqual(openAIRules(openai).slice(0, 5), [])
      assert.deepEqual(openAIStrictRules(strict).slice(0, 5), [])
      assert.deepEqual(anthropicRules(claude).slice(0, 5), [])
      total += operations
    })
  }
  test('all of them: 100 % of the tools present and valid (counted)', () => {
    assert.equal(
      total,
      corpus.reduce((sum, e) => sum + e.operations, 0),
    )
    assert.ok(total > 2700, `${total} tools`)
  })
})
