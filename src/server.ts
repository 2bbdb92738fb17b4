import { readFile, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import {
  EXAMPLE_UPSTREAM_DEFAULTS,
  type ExampleUpstream,
  startExampleUpstream,
} from '../examples/upstream/server.js'
import { buildApp } from './app.js'
import { ConfigError, type GatewayConfig, loadConfig } from './config/load-config.js'
import { type Credential, Secret } from './config/secrets.js'
import type { Tracing } from './tracing/start-tracing.js'
import { isTracingEnabled } from './tracing/tracing-enabled.js'

/** How long the shutdown waits for the last spans to reach the collector. */
const TRACE_FLUSH_MS = 2_000

/** The shipped specs' services and the path each lives under on the example upstream. */
const EXAMPLE_SERVICES = { tickets: '/tickets', billing: '/billing' } as const

/** The example upstream's demo credentials, by service and security scheme of the shipped specs. */
const EXAMPLE_CREDENTIALS: Record<string, Record<string, Credential>> = {
  tickets: {
    apiKeyAuth: { kind: 'secret', secret: new Secret(EXAMPLE_UPSTREAM_DEFAULTS.apiKey) },
    bearerAuth: { kind: 'secret', secret: new Secret(EXAMPLE_UPSTREAM_DEFAULTS.bearerToken) },
  },
  billing: {
    basicAuth: {
      kind: 'basic',
      username: new Secret(EXAMPLE_UPSTREAM_DEFAULTS.basicUser),
      password: new Secret(EXAMPLE_UPSTREAM_DEFAULTS.basicPassword),
    },
  },
}

export interface RunningServer {
  readonly app: FastifyInstance
  readonly config: GatewayConfig
  readonly url: string
  /** The shutdown of SPEC §5: not ready at once, serve on for the drain delay, then drain and close. */
  shutdown(): Promise<void>
}

/**
 * The only place that listens. With nothing configured it serves ./specs and starts the example
 * upstream in-process on a free port, pointing the shipped services at it (SPEC §4).
 */
export async function startServer(validated: GatewayConfig, tracing?: Tracing): Promise<RunningServer> {
  let config = validated
  let upstream: ExampleUpstream | undefined
  if (config.exampleUpstream) {
    upstream = await startExampleUpstream()
    config = withExampleUpstream(config, upstream.url)
  }
  const app = await buildApp({ config, tracing })
  app.addHook('onClose', async () => upstream?.close())
  if (tracing) {
    tracing.useLog(app.log)
    // Last: the spans of the drain are flushed too, within a bound a dead collector cannot stretch.
    app.addHook('onClose', async () => tracing.shutdown(TRACE_FLUSH_MS))
    app.log.info('tracing on: spans are exported to the OTLP endpoint (OTEL_* environment)')
  }
  await app.catalogStore.watch({
    pollMs: config.specsPollMs,
    onError: (err) =>
      app.log.warn({ err }, `watching ${config.specsDir} failed; the periodic check still runs`),
  })
  let url: string
  try {
    url = await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    await app.close() // the watcher, pools and Redis would keep a process that cannot serve alive
    throw err
  }
  if (upstream) app.log.info({ upstream: upstream.url }, 'example upstream started for the shipped specs')
  const shutdown = async () => {
    app.lifecycle.draining = true
    app.log.info({ drainDelayMs: config.drainDelayMs }, 'shutting down: readiness is 503, still serving')
    await sleep(config.drainDelayMs)
    app.log.info(
      { shutdownTimeoutMs: config.shutdownTimeoutMs },
      'shutting down: closing the listener, draining',
    )
    await app.close()
  }
  return { app, config, url, shutdown }
}

/** Configured upstreams and credentials win; the example ones only fill in what is not configured. */
function withExampleUpstream(config: GatewayConfig, url: string): GatewayConfig {
  const services = { ...config.file.services }
  const credentials = { ...config.credentials }
  for (const [id, prefix] of Object.entries(EXAMPLE_SERVICES)) {
    services[id] = { upstream: url + prefix, ...services[id] }
    credentials[id] = { ...EXAMPLE_CREDENTIALS[id], ...credentials[id] }
  }
  return { ...config, file: { ...config.file, services }, credentials }
}

/**
 * `toolgate serve`. SIGTERM/SIGINT shut down gracefully within DRAIN_DELAY + SHUTDOWN_TIMEOUT (exit 0,
 * or 1 when the bound cut the drain short); a second signal exits at once. SIGHUP reloads the specs.
 * The signal handlers are in place before the server listens: a signal never finds it unprotected.
 */
export async function serve(env: Readonly<Record<string, string | undefined>>): Promise<void> {
  let config: GatewayConfig
  try {
    config = await loadConfig(env, (path) => readFile(path, 'utf8'))
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(`toolgate: ${err.message}\n`)
    process.exit(1)
  }
  const missing = await specsDirProblem(config.specsDir)
  if (missing) {
    process.stderr.write(`toolgate: ${missing}\n`)
    process.exit(1)
  }
  const tracing = await startTracingFrom(env)
  let server: RunningServer | undefined
  closeWithGrace(
    {
      delay: config.drainDelayMs + config.shutdownTimeoutMs,
      skip: ['SIGHUP', 'beforeExit'], // SIGHUP reloads; an emptied event loop keeps its exit code
      logger: {
        error: (message: string) => (server ? server.app.log.error(message) : console.error(message)),
      },
    },
    async ({ signal, err }) => {
      if (!server) return // still starting: nothing to drain
      if (err) server.app.log.error({ err }, 'unexpected error, shutting down')
      else server.app.log.info({ signal }, 'shutting down')
      await server.shutdown()
    },
  )
  process.on('SIGHUP', () => {
    server?.app.log.info('SIGHUP: reloading the catalog')
    void server?.app.catalogStore.reload('signal')
  })
  server = await startServer(config, tracing)
}

/** OpenTelemetry's SDK, loaded only when an OTLP endpoint is configured (SPEC §10). */
async function startTracingFrom(
  env: Readonly<Record<string, string | undefined>>,
): Promise<Tracing | undefined> {
  if (!isTracingEnabled(env)) return undefined
  const { startTracing, TracingConfigError } = await import('./tracing/start-tracing.js')
  try {
    return await startTracing(env)
  } catch (err) {
    if (!(err instanceof TracingConfigError)) throw err
    process.stderr.write(`toolgate: ${err.message}\n`)
    process.exit(1)
  }
}

/** Nothing to serve is a configuration mistake, said as one (not `ENOENT … scandir`). */
async function specsDirProblem(dir: string): Promise<string | undefined> {
  const where = `the specs directory ${JSON.stringify(dir)} (SPECS_DIR, resolved to ${resolve(dir)})`
  try {
    if ((await stat(dir)).isDirectory()) return undefined
    return `${where} is not a directory: set SPECS_DIR to the directory of your OpenAPI files`
  } catch {
    return `${where} does not exist: set SPECS_DIR to the directory of your OpenAPI files`
  }
}
