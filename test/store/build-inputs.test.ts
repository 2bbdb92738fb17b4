// What a build records of its reads, and when a reload may trust it (issue 20, row 5b).
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { createFsSourceReader, SourceReadError, type SourceReader } from '../../src/catalog/index.js'
import { recordingReader, sameInputs } from '../../src/store/build-inputs.js'
import { createCatalogStore } from '../../src/store/index.js'
import { serviceSpec, tempDir } from '../helpers/specs-dir.js'

const render = { opal: { name: 'toolgate', version: '0.0.0', authRequirements: {} } }

/** A reader over an in-memory directory `/specs` whose reads fail as `refusals` says (no digests of its own). */
function memoryReader(files: Map<string, string>, refusals: Map<string, SourceReadError> = new Map()) {
  let reads = 0
  const reader: SourceReader = {
    listFiles: async () => [...files.keys()].sort(),
    async readText(path) {
      reads += 1
      const refusal = refusals.get(path)
      if (refusal) throw refusal
      const text = files.get(path.slice('/specs/'.length))
      if (text === undefined) throw new Error(`ENOENT: ${path}`)
      return text
    },
  }
  return { reader, reads: () => reads }
}

test('the disk reader’s digest is the SHA-256 of the file’s bytes, the same with the text or alone', async (t) => {
  const dir = await tempDir(t)
  const bytes = Buffer.concat([Buffer.from('openapi: 3.1.0\n# '), Buffer.from([0xff, 0xfe, 0x80])])
  await writeFile(join(dir, 'a.yaml'), bytes)
  const reader = createFsSourceReader()
  const expected = createHash('sha256').update(bytes).digest('hex')
  const read = await reader.readTextWithDigest(join(dir, 'a.yaml'), dir)
  assert.equal(read.digest, expected)
  assert.equal(read.text, bytes.toString('utf8'))
  assert.equal(await reader.digest(join(dir, 'a.yaml'), dir), expected)
  // Two invalid bytes that decode to the same text still differ.
  await writeFile(join(dir, 'a.yaml'), Buffer.concat([bytes.subarray(0, -1), Buffer.from([0x81])]))
  assert.notEqual(await reader.digest(join(dir, 'a.yaml'), dir), expected)
})

test('the disk reader reads a file of any size whole: past a MiB, empty, and exactly at maxBytes', async (t) => {
  const dir = await tempDir(t)
  // Multi-byte characters across the 1 MiB mark (the reader once read in 1 MiB chunks).
  const bytes = Buffer.from(`# ${'a'.repeat(1024 * 1024 - 3)}é€😀 ${'b'.repeat(4097)}\nopenapi: 3.1.0\n`)
  await writeFile(join(dir, 'big.yaml'), bytes)
  await writeFile(join(dir, 'empty.yaml'), '')
  const reader = createFsSourceReader()
  const read = await reader.readTextWithDigest(join(dir, 'big.yaml'), dir)
  assert.equal(read.text, bytes.toString('utf8'))
  assert.equal(read.digest, createHash('sha256').update(bytes).digest('hex'))
  assert.equal(await reader.readText(join(dir, 'empty.yaml'), dir), '')
  const exact = createFsSourceReader({ maxBytes: bytes.length })
  assert.equal(await exact.readText(join(dir, 'big.yaml'), dir), bytes.toString('utf8'))
  const under = createFsSourceReader({ maxBytes: bytes.length - 1 })
  await assert.rejects(under.readText(join(dir, 'big.yaml'), dir), { code: 'source-too-large' })
})

test('the digest refuses what readText refuses, with the same problem code and message', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'big.yaml'), 'x'.repeat(100))
  const reader = createFsSourceReader({ maxBytes: 10 })
  const refusal = (read: Promise<unknown>) =>
    read.then(
      () => assert.fail('not refused'),
      (err: SourceReadError) => `${err.code}: ${err.message}`,
    )
  const text = await refusal(reader.readText(join(dir, 'big.yaml'), dir))
  assert.match(text, /^source-too-large: /)
  assert.equal(await refusal(reader.digest(join(dir, 'big.yaml'), dir)), text)
  assert.equal(
    await refusal(reader.digest(join(dir, 'missing.yaml'), dir)),
    await refusal(reader.readText(join(dir, 'missing.yaml'), dir)),
  )
})

test('a refusal read again the same compares equal; read fine, it does not; a timeout is never compared', async () => {
  const files = new Map([['a.yaml', serviceSpec([1])]])
  const tooLarge = new SourceReadError('source-too-large', '/specs/a.yaml is too large')
  const refusals = new Map([['/specs/a.yaml', tooLarge]])
  const recorded = recordingReader(memoryReader(files, refusals).reader)
  assert.deepEqual(await recorded.reader.listFiles('/specs'), ['a.yaml'])
  await assert.rejects(recorded.reader.readText('/specs/a.yaml', '/specs'), tooLarge)
  const inputs = recorded.inputs()
  assert.ok(inputs)
  assert.equal(await sameInputs(inputs, memoryReader(files, refusals).reader), true)
  assert.equal(await sameInputs(inputs, memoryReader(files).reader), false)

  const timeout = new SourceReadError('source-read-timeout', 'reading /specs/a.yaml took longer than 5000 ms')
  const timedOut = recordingReader(memoryReader(files, new Map([['/specs/a.yaml', timeout]])).reader)
  await timedOut.reader.listFiles('/specs')
  await assert.rejects(timedOut.reader.readText('/specs/a.yaml', '/specs'), timeout)
  assert.equal(timedOut.inputs(), undefined, 'a timeout may not repeat: the next reload builds')
})

test('a directory that could not be listed is never compared: the next reload builds (and fails again)', async () => {
  const recorded = recordingReader({
    listFiles: async () => {
      throw new Error('EACCES')
    },
    readText: async () => '',
  })
  await assert.rejects(recorded.reader.listFiles('/specs'))
  assert.equal(recorded.inputs(), undefined)
})

test('a file read twice in one build with two answers (it changed mid-build) is never compared', async () => {
  let text = 'one'
  const recorded = recordingReader({ listFiles: async () => [], readText: async () => text })
  await recorded.reader.readText('/specs/shared.yaml', '/specs')
  text = 'two'
  await recorded.reader.readText('/specs/shared.yaml', '/specs')
  assert.equal(recorded.inputs(), undefined)
})

test('a reader without digests is compared by its text: unchanged skips the build, a changed text builds', async (t) => {
  const files = new Map([['a.yaml', serviceSpec([1])]])
  const memory = memoryReader(files)
  const store = await createCatalogStore({ specsDir: '/specs', reader: memory.reader, options: {}, render })
  t.after(() => store.close())
  const reads = memory.reads()
  const unchanged = await store.reload('manual')
  assert.equal(unchanged.swapped, false)
  assert.equal(memory.reads(), reads + 1, 'the check read the one file, the build nothing')
  files.set('a.yaml', serviceSpec([2]))
  const changed = await store.reload('manual')
  assert.equal(changed.swapped, true)
  assert.equal(memory.reads(), reads + 3, 'the check read it, then the build')
})
