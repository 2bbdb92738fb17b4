import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fromRoot } from '../helpers/paths.js'
import { runCli } from '../helpers/process.js'

test('gen openai writes seed 002 files; gen check fails after a spec edit and passes after regenerating', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-gen-'))
  const specs = join(dir, 'specs')
  const out = join(dir, 'out')
  await cp(fromRoot('specs'), specs, { recursive: true })
  const written = await runCli(['gen', 'openai', '--specs', specs, '--out', out])
  assert.equal(written.code, 0, written.stderr)
  assert.match(written.stdout, /wrote 8 files/)
  const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'))
  assert.deepEqual(Object.keys(manifest), ['version', 'generatedAt', 'services'])
  assert.deepEqual(
    manifest.services.map((s: { id: string; openai: string; claude: string }) => [s.id, s.openai, s.claude]),
    [
      ['billing', 'billing.json', 'billing.claude.json'],
      ['support', 'support.json', 'support.claude.json'],
      ['tickets', 'tickets.json', 'tickets.claude.json'],
    ],
  )
  assert.equal((await runCli(['gen', 'check', '--specs', specs, '--out', out])).code, 0)

  // Regenerating later changes only the generation time, which gen check ignores.
  assert.equal((await runCli(['gen', 'openai', '--specs', specs, '--out', out])).code, 0)
  assert.equal((await runCli(['gen', 'check', '--specs', specs, '--out', out])).code, 0)

  const billing = join(specs, 'billing.json')
  await writeFile(billing, (await readFile(billing, 'utf8')).replace('Create an invoice', 'Raise an invoice'))
  const stale = await runCli(['gen', 'check', '--specs', specs, '--out', out])
  assert.equal(stale.code, 1)
  assert.match(stale.stderr, /billing\.json: out of date/)
  assert.match(stale.stderr, /all\.json: out of date/)
  assert.doesNotMatch(stale.stderr, /tickets\.json/)

  assert.equal((await runCli(['gen', 'openai', '--specs', specs, '--out', out])).code, 0)
  assert.equal((await runCli(['gen', 'check', '--specs', specs, '--out', out])).code, 0)
})

test('the committed generated/openai files are fresh for the shipped specs (npm run gen:check)', async () => {
  const check = await runCli([
    'gen',
    'check',
    '--specs',
    fromRoot('specs'),
    '--out',
    fromRoot('generated', 'openai'),
  ])
  assert.equal(check.code, 0, check.stderr)
})
