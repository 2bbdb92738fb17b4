import assert from 'node:assert/strict'
import { test } from 'node:test'
import { keptTickObject } from '../../src/cli/v8-tuning.js'

// The CPU it saves is measured by the bench (rows 1 and 3 with a small young generation); this
// holds the assumption it rests on, on each Node the suite runs on: what the module keeps is one
// of process.nextTick's tick objects (its class is the one every later tick gets).
test('v8-tuning keeps one of process.nextTick’s own tick objects alive', async () => {
  await new Promise((resolve) => process.nextTick(resolve))
  const kept = keptTickObject()
  assert.ok(kept, 'no tick object kept')
  const symbols = Object.getOwnPropertySymbols(kept).map((symbol) => symbol.description)
  assert.deepEqual(symbols.slice(0, 2), ['async_id_symbol', 'trigger_async_id_symbol'])
  assert.deepEqual(Object.keys(kept), ['callback', 'args'])
})
