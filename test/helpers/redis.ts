import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { Redis } from 'ioredis'
import { REDIS_CLIENT_OPTIONS } from '../../src/sessions/redis.js'
import { closedPort } from './upstreams.js'

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** A key prefix of its own for one test, and a client; every key with it is deleted afterwards. */
export async function redisForTest(t: { after(fn: () => Promise<unknown>): void }) {
  const prefix = `toolgate-test:${randomUUID()}:`
  const client = new Redis(REDIS_URL, { ...REDIS_CLIENT_OPTIONS, lazyConnect: true })
  await client.connect()
  t.after(async () => {
    const keys = await client.keys(`${prefix}*`)
    if (keys.length > 0) await client.del(...keys)
    client.disconnect()
  })
  return { client, prefix }
}

/** A private redis-server on a free port, which a test can stop and start again. */
export async function privateRedis(t: { after(fn: () => Promise<unknown>): void }) {
  const port = await closedPort()
  let process: ChildProcess | undefined
  const start = async () => {
    process = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    )
    const probe = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 1,
    })
    probe.on('error', () => {}) // refused until redis-server listens: that is what the loop waits for
    for (let i = 0; i < 50; i++) {
      try {
        await probe.connect()
        break
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    probe.disconnect()
  }
  const stop = async () => {
    if (!process || process.exitCode !== null || process.signalCode !== null) return // already stopped
    process.kill('SIGKILL')
    await once(process, 'exit')
  }
  await start()
  t.after(stop)
  return { url: `redis://127.0.0.1:${port}`, start, stop }
}
