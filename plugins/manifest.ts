import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { maxSatisfying, validRange } from 'semver'
import type { Caller } from '../src/access/index.js'
import type { Catalog } from '../src/catalog/types.js'
import { errors } from '../src/errors.js'
import {
  LATEST_MANIFEST_VERSION,
  MANIFEST_VERSIONS,
  type ManifestVersion,
  renderManifest,
  ServedDocument,
} from '../src/formats/index.js'
import { SESSION_CODE_PATTERN, type Session, SessionStoreUnavailable } from '../src/sessions/types.js'
import { memoPerOwner } from '../src/util/memo.js'
import { sendDocument } from './send-document.js'

/** seed 001's error bodies, exactly. */
const ERRORS = {
  badCode: { error: 'Invalid session code format' },
  unknown: { error: 'Session not found or invalid' },
  expired: { error: 'Session expired' },
  method: { error: 'Method not allowed' },
  internal: { error: 'Internal server error' },
} as const

const RETRY_AFTER_SECONDS = '5'
const SUPPORTED_VERSIONS = MANIFEST_VERSIONS.join(', ')

interface CodeRoute {
  Params: { code: string }
}
interface CodeQuery {
  Querystring: { code?: string }
}
interface CreateRoute {
  Body: { profile?: string; ttlSeconds?: number } | undefined
}

/** Manifests rendered once per catalog version, view and manifest version (no key built per request). */
const manifestsOf = memoPerOwner(
  (_catalog: Catalog, _view: string) => new Map<ManifestVersion, ServedDocument>(),
)

function manifestDocument(catalog: Catalog, view: string, version: ManifestVersion): ServedDocument {
  const byVersion = manifestsOf(catalog, view)
  let document = byVersion.get(version)
  if (!document) {
    document = new ServedDocument(renderManifest(catalog, view, version))
    byVersion.set(version, document)
  }
  return document
}

/**
 * The longest Accept-Version parsed: real ones (`1`, `^1.0.0`, `1.x || 2.x`) are a few characters,
 * and semver's range parser is superlinear (a 16 KB `^1.0.0 ^1.0.0 …` took 228 ms of CPU). Longer
 * is a 400 naming the header, before any parsing (issue 41 class 9).
 */
export const ACCEPT_VERSION_MAX_CHARS = 64

/** `Accept-Version`: absent → latest; an exact version or a semver range (`1`, `1.x`, `^1.0.0`) → highest match. */
export function negotiateVersion(header: string | undefined): ManifestVersion | undefined {
  if (header === undefined) return LATEST_MANIFEST_VERSION
  // A client sends the same header on every request: semver parses each distinct one once. The
  // first NEGOTIATED_MAX distinct values are kept, so random headers cannot grow it.
  const known = negotiated.get(header)
  if (known !== undefined) return known || undefined
  const version = negotiate(header)
  if (negotiated.size < NEGOTIATED_MAX) negotiated.set(header, version ?? '')
  return version
}

const NEGOTIATED_MAX = 64
/** Accept-Version values seen, with their answer ('' for none: a 406). */
const negotiated = new Map<string, ManifestVersion | ''>()

function negotiate(header: string): ManifestVersion | undefined {
  if (header.trim() === '') return LATEST_MANIFEST_VERSION
  if (validRange(header.trim()) === null) return undefined
  return (maxSatisfying([...MANIFEST_VERSIONS], header.trim()) ?? undefined) as ManifestVersion | undefined
}

/**
 * Sessions (SPEC §2) and the session-scoped tool manifest (seed 001): status codes, bodies and
 * headers as the seed shows them; the same manifest at /api/metadata?code= (CODAP-mcp's real path).
 */
export default async function manifest(fastify: FastifyInstance) {
  const { config } = fastify
  // seed 001's 500 body, and 503 with Retry-After while the session store is away.
  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof SessionStoreUnavailable) {
      request.log.warn({ err: error.message }, 'session store unavailable')
      return reply.code(503).header('Retry-After', RETRY_AFTER_SECONDS).send({
        error: 'Session store unavailable',
        detail: 'Redis does not answer; discovery and tool calls still work. Retry shortly.',
      })
    }
    if (error.validation) return reply.code(400).send({ error: error.message })
    // A client's error (bad JSON, a body too large): the gateway's error handler answers it.
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) throw error
    request.log.error({ err: error }, 'session route failed')
    return reply.code(500).send(ERRORS.internal)
  })

  fastify.post<CreateRoute>(
    '/api/sessions',
    {
      config: { access: 'sessions' },
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            profile: { type: 'string', minLength: 1, maxLength: 64 },
            ttlSeconds: { type: 'integer', minimum: 1, maximum: config.sessionMaxTtlSeconds },
          },
        },
      },
    },
    async (request, reply) => {
      const { catalog } = fastify.catalogStore.current()
      const profile = request.body?.profile ?? 'discover'
      if (!catalog.views[profile]) {
        return reply
          .code(400)
          .send({ error: `Unknown profile ${profile}: use one of ${Object.keys(catalog.views).join(', ')}` })
      }
      const { caller } = request
      const allowed = caller.kind === 'client' ? caller.client.profiles : undefined
      if (allowed && !allowed.includes(profile)) {
        const error = new errors.accessProfileNotAllowed(
          caller.kind === 'client' ? caller.client.id : '',
          profile,
          allowed.join(', '),
        )
        return reply.code(403).send({ error: error.message, code: error.code })
      }
      const session = await fastify.sessions.create({
        profile,
        ttlSeconds: request.body?.ttlSeconds ?? config.sessionTtlSeconds,
        ...(caller.kind === 'client' ? { client: caller.client.id } : {}),
      })
      fastify.gatewayMetrics.sessionCreated(fastify.sessionStoreKind)
      return reply.code(201).send(session)
    },
  )

  fastify.delete<CodeRoute>(
    '/api/sessions/:code',
    { config: { access: 'discovery' } },
    async (request, reply) => {
      if (!SESSION_CODE_PATTERN.test(request.params.code)) return reply.code(400).send(ERRORS.badCode)
      const deleted = await fastify.sessions.delete(request.params.code)
      return deleted ? reply.code(204).send() : reply.code(401).send(ERRORS.unknown)
    },
  )

  /**
   * Not an async function: one that returns the reply makes Fastify wait on it as a thenable
   * (`Reply#then` listens for the response's end). The Redis GET of a session not held here is
   * the only await.
   */
  const serve = (code: string | undefined, request: FastifyRequest, reply: FastifyReply) => {
    if (!code || !SESSION_CODE_PATTERN.test(code)) return reply.code(400).send(ERRORS.badCode)
    const requested = request.headers['accept-version']
    if (requested !== undefined && requested.length > ACCEPT_VERSION_MAX_CHARS) {
      const error = new errors.requestHeaderTooLong(
        'Accept-Version',
        ACCEPT_VERSION_MAX_CHARS,
        `send a version or a range such as 1, 1.x or ^1.0.0 (supported: ${SUPPORTED_VERSIONS})`,
      )
      return reply.code(400).send({ error: error.message, code: error.code })
    }
    const version = negotiateVersion(typeof requested === 'string' ? requested : undefined)
    if (!version) {
      return reply.code(406).send({
        error: 'Unsupported version',
        requestedVersion: requested,
        supportedVersions: [...MANIFEST_VERSIONS],
      })
    }
    // A session this process holds is answered here and now: no promise, no microtask, and
    // Fastify's synchronous path (the handler returns undefined, the reply is sent).
    const held = fastify.sessions.cached?.(code)
    if (held !== undefined) {
      answer(held, version, request, reply)
      return
    }
    return fastify.sessions.get(code).then((session) => {
      answer(session, version, request, reply)
    })
  }
  const answer = (
    session: Session | undefined,
    version: ManifestVersion,
    request: FastifyRequest,
    reply: FastifyReply,
  ) => {
    const { catalog } = fastify.catalogStore.current()
    const verdict = checkSession(session, Date.now(), catalog)
    if (verdict) {
      reply.code(verdict === 'expired' ? 403 : 401).send(ERRORS[verdict])
      return
    }
    reply.header('API-Version', version)
    reply.header('Tool-Manifest-Version', version)
    reply.header('Supported-Versions', SUPPORTED_VERSIONS)
    const seen = fastify.access.catalogFor(viewer(request.caller, session!.client), catalog)
    sendDocument(request, reply, manifestDocument(seen, session!.profile, version))
  }
  /** Whose view a manifest shows: the client presenting a token, else the one that created the session. */
  const viewer = (caller: Caller, creator: string | undefined): Caller => {
    if (caller.kind === 'client' || creator === undefined) return caller
    return creators.get(creator) ?? caller
  }
  // The configured clients as callers, once (the first of an id, as `find` would pick).
  const creators = new Map<string, Caller>()
  for (const client of config.access.clients) {
    if (!creators.has(client.id)) creators.set(client.id, { kind: 'client', client })
  }
  const discovery = { config: { access: 'discovery' as const } }
  fastify.get<CodeRoute>('/api/sessions/:code/metadata', discovery, (request, reply) =>
    serve(request.params.code, request, reply),
  )
  fastify.get<CodeQuery>('/api/metadata', discovery, (request, reply) =>
    serve(request.query.code, request, reply),
  )
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).header('Allow', 'GET, OPTIONS').send(ERRORS.method)
  for (const url of ['/api/sessions/:code/metadata', '/api/metadata']) {
    fastify.route({ method: ['POST', 'PUT', 'PATCH', 'DELETE'], url, handler: notAllowed })
  }
}

/** 401 unknown, 403 expired (within the grace period), or undefined when the session serves. */
function checkSession(
  session: Session | undefined,
  nowMs: number,
  catalog: Catalog,
): 'unknown' | 'expired' | undefined {
  if (!session || !catalog.views[session.profile]) return 'unknown'
  return Date.parse(session.expiresAt) <= nowMs ? 'expired' : undefined
}
