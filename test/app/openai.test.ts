import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { brotliDecompressSync } from 'node:zlib'
import { configFile, testApp } from '../helpers/app.js'
import { fromRoot } from '../helpers/paths.js'
import {
  anthropicDeferredRules,
  anthropicRules,
  openAIDeferredRules,
  openAIRules,
  openAIStrictRules,
} from '../helpers/tool-rules.js'

const generated = (name: string) => JSON.parse(readFileSync(fromRoot('generated', 'openai', name), 'utf8'))

describe('GET /openai.json, /openai/:service.json, /claude.json, /claude/:service.json', () => {
  test('every service, each service by id, strict and Claude: valid documents', async (t) => {
    const app = await testApp(t)
    const all = (await app.inject('/openai.json')).json()
    assert.equal(all.length, 22)
    assert.deepEqual(openAIRules(all), [])
    const strict = (await app.inject('/openai.json?strict=true')).json()
    assert.deepEqual(openAIStrictRules(strict), [])
    const billing = (await app.inject('/openai/billing.json')).json()
    assert.ok(
      billing.length > 0 &&
        billing.every((tool: { function: { name: string } }) => tool.function.name.startsWith('billing_')),
    )
    const claude = (await app.inject('/claude/tickets.json')).json()
    assert.deepEqual(anthropicRules(claude), [])
    assert.ok(claude.every((tool: { name: string }) => tool.name.startsWith('tickets_')))
  })

  test('served and generated documents are identical for the same catalog', async (t) => {
    const app = await testApp(t)
    assert.deepEqual((await app.inject('/openai.json')).json(), generated('all.json'))
    for (const service of ['billing', 'tickets']) {
      assert.deepEqual((await app.inject(`/openai/${service}.json`)).json(), generated(`${service}.json`))
      assert.deepEqual(
        (await app.inject(`/claude/${service}.json`)).json(),
        generated(`${service}.claude.json`),
      )
    }
    const manifest = generated('manifest.json')
    assert.equal(manifest.version, (await app.inject('/version')).json().catalogVersion)
  })

  test('a service by alias (dots allowed), strong ETag with 304, brotli, profile and unknown names', async (t) => {
    const config =
      'services:\n  tickets: { alias: help.desk }\nprofiles:\n  readers: { safety: { readOnly: true } }\n'
    const app = await testApp(t, { TOOLGATE_CONFIG: await configFile(config) })
    const byAlias = await app.inject('/openai/help.desk.json')
    assert.equal(byAlias.statusCode, 200)
    assert.ok(
      byAlias
        .json()
        .every((tool: { function: { name: string } }) => tool.function.name.startsWith('help_desk_')),
    )
    assert.deepEqual((await app.inject('/openai/tickets.json')).json(), byAlias.json(), 'the id works too')
    const etag = String(byAlias.headers.etag)
    assert.equal(
      (await app.inject({ url: '/openai/help.desk.json', headers: { 'if-none-match': etag } })).statusCode,
      304,
    )
    const br = await app.inject({ url: '/claude.json', headers: { 'accept-encoding': 'br' } })
    assert.equal(br.headers['content-encoding'], 'br')
    assert.deepEqual(
      JSON.parse(brotliDecompressSync(br.rawPayload).toString()),
      (await app.inject('/claude.json')).json(),
    )
    const readers = (await app.inject('/openai.json?profile=readers')).json()
    assert.ok(readers.length > 0 && readers.length < 20)
    assert.deepEqual((await app.inject('/openai/nope.json')).json().code, 'TG_ERR_SERVICE_UNKNOWN')
    assert.equal((await app.inject('/openai/tickets')).statusCode, 404)
    assert.equal((await app.inject('/claude.json?profile=nope')).statusCode, 400)
    assert.equal((await app.inject('/openai.json?strict=maybe')).statusCode, 400)
  })
})

describe('GET /openai-deferred.json, /claude-deferred.json and per service (tool search, issue 15)', () => {
  test('valid deferred documents of the same tools; strict; per service by alias; ETag 304; brotli; profiles', async (t) => {
    const config =
      'services:\n  tickets: { alias: help.desk }\nprofiles:\n  readers: { safety: { readOnly: true } }\n'
    const app = await testApp(t, { TOOLGATE_CONFIG: await configFile(config) })
    const openai = await app.inject('/openai-deferred.json')
    assert.equal(openai.statusCode, 200)
    assert.deepEqual(openAIDeferredRules(openai.json()), [])
    assert.deepEqual(
      openai.json().map((tool: { type: string; name?: string }) => tool.name ?? tool.type),
      ['billing', 'support', 'help_desk', 'tool_search'],
    )
    const functions = openai.json().flatMap((tool: { tools?: { name: string }[] }) => tool.tools ?? [])
    assert.deepEqual(
      functions.map((fn: { name: string }) => fn.name),
      (await app.inject('/openai.json'))
        .json()
        .map((tool: { function: { name: string } }) => tool.function.name),
    )
    assert.deepEqual(
      openAIDeferredRules((await app.inject('/openai-deferred.json?strict=true')).json(), { strict: true }),
      [],
    )
    const claude = await app.inject('/claude-deferred.json')
    assert.deepEqual(anthropicDeferredRules(claude.json()), [])
    assert.equal(claude.json().length, 23)
    const one = await app.inject('/claude-deferred/help.desk.json')
    assert.equal(one.statusCode, 200)
    assert.deepEqual(anthropicDeferredRules(one.json()), [])
    assert.deepEqual(
      (await app.inject('/openai-deferred/tickets.json')).json().map((tool: { type: string }) => tool.type),
      ['namespace', 'tool_search'],
    )
    const etag = String(openai.headers.etag)
    assert.match(etag, /^"[A-Za-z0-9_-]{27}"$/)
    const again = await app.inject({ url: '/openai-deferred.json', headers: { 'if-none-match': etag } })
    assert.equal(again.statusCode, 304)
    const br = await app.inject({ url: '/claude-deferred.json', headers: { 'accept-encoding': 'br' } })
    assert.equal(br.headers['content-encoding'], 'br')
    assert.deepEqual(JSON.parse(brotliDecompressSync(br.rawPayload).toString()), claude.json())
    const readers = (await app.inject('/claude-deferred.json?profile=readers')).json()
    assert.ok(readers.length > 1 && readers.length < 23)
    assert.equal((await app.inject('/openai-deferred/nope.json')).json().code, 'TG_ERR_SERVICE_UNKNOWN')
    assert.equal((await app.inject('/claude-deferred.json?profile=nope')).statusCode, 400)
  })
})
