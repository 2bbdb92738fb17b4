import assert from 'node:assert/strict'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { largeSpec } from '../helpers/large-spec.js'
import { fromRoot } from '../helpers/paths.js'
import { runCli } from '../helpers/process.js'

test('toolgate lint specs: the shipped specs lint clean (exit 0) and the summary counts them', async () => {
  const result = await runCli(['lint', fromRoot('specs')])
  assert.equal(result.code, 0, result.stdout + result.stderr)
  assert.match(result.stdout, /3 source\(s\), 3 service\(s\), 24 tool\(s\), 2 workflow\(s\)/)
  assert.match(result.stdout, /0 error\(s\)/)
})

test('toolgate lint: exit 1 on an error, each problem printed with file, pointer, severity and code', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-lint-'))
  await writeFile(join(dir, 'broken.yaml'), 'openapi: 3.1.0\npaths: [\n')
  await writeFile(
    join(dir, 'fine.yaml'),
    'openapi: 3.1.0\ninfo: { title: F, version: "1" }\npaths:\n  /x:\n    get:\n      responses: {}\n',
  )
  const result = await runCli(['lint', dir])
  assert.equal(result.code, 1)
  assert.match(result.stdout, /^broken\.yaml {2}error {2}source-parse-error {2}not valid YAML at line \d+/m)
  assert.match(result.stdout, /^fine\.yaml#\/paths\/~1x\/get {2}warning {2}operation-without-id/m)
  assert.match(result.stdout, /failed sources: broken\.yaml/)
})

test('toolgate lint: warnings alone exit 0; a missing directory exits 1 naming it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-lint-'))
  await writeFile(
    join(dir, 'w.yaml'),
    'openapi: 3.1.0\ninfo: { title: W, version: "1" }\npaths:\n  /x:\n    get:\n      responses: {}\n',
  )
  assert.equal((await runCli(['lint', dir])).code, 0)
  const missing = await runCli(['lint', join(dir, 'nope')])
  assert.equal(missing.code, 1)
  assert.match(missing.stdout, /cannot list .*nope/)
})

test('toolgate with an unknown command or a bad environment exits non-zero with a message, no stack trace', async () => {
  const unknown = await runCli(['frobnicate'])
  assert.equal(unknown.code, 2)
  assert.match(unknown.stderr, /unknown command frobnicate/)
  const badEnv = await runCli(['lint'], { PORT: 'abc' })
  assert.equal(badEnv.code, 2)
  assert.match(badEnv.stderr, /environment variable PORT: must be integer/)
  assert.doesNotMatch(badEnv.stderr, /at .*\.js:\d+/)
})

test('toolgate lint warns when a view passes 128 OpenAI functions, or the budgets of the YAML file (issue 15)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-lint-'))
  await writeFile(join(dir, 'big.json'), largeSpec(130))
  const big = await runCli(['lint', dir])
  assert.equal(big.code, 0, big.stdout + big.stderr)
  assert.match(
    big.stdout,
    /^view discover \(openai\) {2}warning {2}budget-openai-tools {2}130 functions in \/openai\.json, over budgets\.openaiTools \(128\).*\/openai-deferred\.json/m,
  )
  assert.match(big.stdout, /0 error\(s\), 1 warning\(s\)/)

  const config = join(dir, 'gw.yaml')
  await writeFile(config, 'budgets:\n  openaiTools: 10\n  tokens: 3500\n')
  const shipped = await runCli(['lint', fromRoot('specs')], { TOOLGATE_CONFIG: config })
  assert.equal(shipped.code, 0, shipped.stdout + shipped.stderr)
  assert.match(shipped.stdout, /^view discover \(openai\) {2}warning {2}budget-openai-tools {2}22 functions/m)
  assert.match(
    shipped.stdout,
    /^view discover \(mcp\) {2}warning {2}budget-tokens {2}\d+ tokens, over budgets\.tokens \(3500\)/m,
  )
  assert.doesNotMatch(shipped.stdout, /\((openai|claude)-deferred\)/, 'the deferred forms stay far below')
  await writeFile(config, 'budgets:\n  openaiTool: 10\n')
  const typo = await runCli(['lint', fromRoot('specs')], { TOOLGATE_CONFIG: config })
  assert.equal(typo.code, 2)
  assert.match(typo.stderr, /openaiTool/)
})
