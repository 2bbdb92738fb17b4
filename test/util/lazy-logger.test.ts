import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import Fastify from 'fastify'
import { makeChildrenLazy } from '../../src/util/lazy-logger.js'

function capturing(level: string) {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()))
      done()
    },
  })
  // Fastify's own pino logger, as the gateway's.
  const parent = Fastify({ logger: { level, stream } }).log
  makeChildrenLazy(parent)
  // As Fastify's own childLoggerFactory asks for a request's logger.
  const child = (bindings: Record<string, unknown>, options = {}) => parent.child(bindings, options)
  return { lines, parent, child }
}

test("a request's lazy logger writes what pino's child writes, bindings included, and nothing below the level", () => {
  const { lines, child } = capturing('warn')
  const log = child({ reqId: 'r-1' })
  assert.equal(log.level, 'warn')
  log.info({ a: 1 }, 'not written')
  log.debug('not written')
  assert.equal(lines.length, 0)
  log.warn({ a: 2 }, 'written')
  log.error(new Error('boom'))
  assert.equal(lines.length, 2)
  assert.equal(lines[0]!.reqId, 'r-1')
  assert.equal(lines[0]!.a, 2)
  assert.equal(lines[0]!.msg, 'written')
  assert.equal(lines[1]!.reqId, 'r-1')
  assert.equal((lines[1]!.err as { message: string }).message, 'boom')
  // A grandchild carries both bindings.
  log.child({ step: 'x' }).fatal('deep')
  assert.deepEqual([lines[2]!.reqId, lines[2]!.step, lines[2]!.msg], ['r-1', 'x', 'deep'])
})

test('a lazy logger whose level is raised writes at the new level; a route level or serializers get a real child', () => {
  const { lines, child } = capturing('warn')
  const log = child({ reqId: 'r-2' })
  log.level = 'debug'
  assert.equal(log.level, 'debug')
  log.debug('now written')
  assert.deepEqual([lines[0]!.reqId, lines[0]!.msg], ['r-2', 'now written'])

  const routed = child({ reqId: 'r-3' }, { level: 'trace' })
  routed.trace('route level')
  assert.deepEqual([lines[1]!.reqId, lines[1]!.msg], ['r-3', 'route level'])
})

test('at info, every line of a request carries its id, as before', () => {
  const { lines, child } = capturing('info')
  const log = child({ reqId: 'r-4' })
  log.info('one')
  log.info('two')
  assert.deepEqual(
    lines.map((line) => [line.reqId, line.msg]),
    [
      ['r-4', 'one'],
      ['r-4', 'two'],
    ],
  )
})

test("a lazy child makes no pino child until it writes; a child with a level of its own is pino's at once", () => {
  const { lines, parent, child } = capturing('warn')
  const log = child({ reqId: 'r-5' })
  assert.equal(Object.getPrototypeOf(log), Object.getPrototypeOf(child({ reqId: 'r-6' })))
  assert.notEqual(Object.getPrototypeOf(log), parent)
  // pino's child inherits from its parent: a level of its own gets one at once.
  assert.equal(Object.getPrototypeOf(child({ reqId: 'r-7' }, { level: 'info' })), parent)
  log.info('not written')
  assert.equal(lines.length, 0)
})

test("in an app, Fastify's own child factory gives each request a lazy logger that writes with its id", async (t) => {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()))
      done()
    },
  })
  const app = Fastify({ logger: { level: 'warn', stream } })
  t.after(() => app.close())
  makeChildrenLazy(app.log)
  // Fastify checks the logger of a custom childLoggerFactory on every request; its own it does not.
  assert.equal(app.childLoggerFactory.name, 'defaultChildLoggerFactory')
  app.get('/quiet', async (request) => ({ lazy: Object.getPrototypeOf(request.log) !== app.log }))
  app.get('/loud', async (request) => {
    request.log.warn({ a: 1 }, 'loud')
    return {}
  })
  app.get('/debug', { logLevel: 'debug' }, async (request) => {
    request.log.debug('debug line')
    return {}
  })
  assert.deepEqual((await app.inject('/quiet')).json(), { lazy: true })
  assert.equal(lines.length, 0)
  const loud = await app.inject({ url: '/loud', headers: { 'x-request-id': 'id-1' } })
  assert.equal(loud.statusCode, 200)
  await app.inject('/debug')
  assert.deepEqual(
    lines.map((line) => [typeof line.reqId, line.msg]),
    [
      ['string', 'loud'],
      ['string', 'incoming request'],
      ['string', 'debug line'],
      ['string', 'request completed'],
    ],
  )
})

test("a lazy logger answers pino's bindings(), setBindings() and flush() as pino's child does", async () => {
  const { lines, child } = capturing('warn')
  const log = child({ reqId: 'r-8' }) as ReturnType<typeof child> & {
    bindings(): Record<string, unknown>
    setBindings(bindings: Record<string, unknown>): void
    flush(callback?: (error?: Error) => void): void
  }
  assert.deepEqual(log.bindings(), { reqId: 'r-8' })
  log.setBindings({ tool: 't' })
  assert.deepEqual(log.bindings(), { reqId: 'r-8', tool: 't' })
  log.warn('with both')
  assert.deepEqual([lines[0]!.reqId, lines[0]!.tool, lines[0]!.msg], ['r-8', 't', 'with both'])
  await new Promise<void>((resolve, reject) => log.flush((error) => (error ? reject(error) : resolve())))
})
