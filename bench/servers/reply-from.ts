// Row 3's baseline: Fastify + @fastify/reply-from forwarding POST /tools/:name unchanged to the
// upstream in argv[2], with the gateway's pool size and keep-alive (plugins/tools.ts defaults).
import replyFrom from '@fastify/reply-from'
import Fastify from 'fastify'
import { announce, KEEP_ALIVE_TIMEOUT_MS, LOG_LEVEL } from './listening.js'

const app = Fastify({ logger: { level: LOG_LEVEL }, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS })
await app.register(replyFrom, {
  base: process.argv[2] ?? '',
  undici: { connections: 64, keepAliveTimeout: 10_000 },
})
app.post('/tools/:name', (request, reply) => reply.from(request.url))
announce(await app.listen({ port: 0, host: '127.0.0.1' }))
