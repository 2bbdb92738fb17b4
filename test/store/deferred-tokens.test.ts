// Issue 20, row 6b: the build worker counts the views' tokens (the tokenizer, ≈ 35 MB of its own)
// only once the store asks, after its swap, so the count does not add to the main thread's decode
// of the answer and to both versions held until the swapped-out one is collected.
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createProcessBuilder } from '../../src/store/catalog-builder.js'
import { NO_REMOTES } from '../../src/store/index.js'
import { serviceSpec, tempDir } from '../helpers/specs-dir.js'
import { render } from '../helpers/store.js'

const PENDING = Symbol('pending')

test('the build worker waits to count tokens until it is asked, then answers them', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1, 2, 3]))
  const builder = createProcessBuilder(
    { specsDir: dir, options: {}, render },
    { timeoutMs: 30_000, memoryMb: 512 },
  )
  t.after(() => builder.close())
  const built = await builder.build(NO_REMOTES, false)
  assert.ok(built.tokens, 'a changed build answers its tokens later')
  // Long enough for the worker to count three tools' documents many times over.
  const early = await Promise.race([built.tokens.counted, sleep(500, PENDING)])
  assert.equal(early, PENDING, 'the worker counted before it was asked')
  built.tokens.count()
  const tokens = await built.tokens.counted
  const openai = tokens?.discover?.openai?.tokens
  assert.ok(openai && openai > 0, `counted: ${JSON.stringify(tokens)}`)
})

test('a build worker left waiting to count is stopped when the builder closes', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1]))
  const builder = createProcessBuilder(
    { specsDir: dir, options: {}, render },
    { timeoutMs: 30_000, memoryMb: 512 },
  )
  const built = await builder.build(NO_REMOTES, false)
  await builder.close()
  assert.equal(await built.tokens!.counted, undefined)
})
