import { envMs, type Fields, fields, isPinnedImage } from './fields.js'

export interface ComposeAssets {
  /** docker-compose.yml as `docker-compose config` prints it (normalized: maps, not lists). */
  readonly compose: Fields
  /** deploy/nginx.conf, the load balancer's server block. */
  readonly nginxConf: string
  /** The gateway's TOOLGATE_CONFIG file, parsed (deploy/toolgate.compose.yaml). */
  readonly gatewayConfig: unknown
  /** Environment variables the gateway reads; any other name is a typo. */
  readonly knownEnv: ReadonlySet<string>
}

const COMPOSE = 'docker-compose.yml'
const NGINX = 'deploy/nginx.conf'
const GATEWAY = 'gateway'
const GATEWAY_KEEP_ALIVE_SECONDS = 72 // the gateway's keepAliveTimeout
const DOCKER_STOP_GRACE_SECONDS = 10 // Docker's default before SIGKILL
const MARGIN_SECONDS = 5

/** The multi-replica demo: gateways behind nginx, Redis, the example upstream (SPEC §6). */
export function checkComposePolicy(assets: ComposeAssets): string[] {
  const services = fields(assets.compose.services)
  const gateway = services[GATEWAY]
  if (gateway === undefined) return [`${COMPOSE}: no service named ${GATEWAY}`]
  const named = (test: (service: Fields) => boolean) =>
    Object.entries(services).find(([, service]) => test(fields(service)))?.[0]
  const redis = named((s) => String(s.image ?? '').startsWith('redis:'))
  const lb = named((s) => String(s.image ?? '').startsWith('nginx:'))
  const upstream = named((s) => String(s.command ?? '').includes('dist/examples/upstream/server.js'))
  const problems: string[] = []
  if (!redis) problems.push(`${COMPOSE}: no redis service`)
  if (!lb) problems.push(`${COMPOSE}: no nginx load balancer service`)
  if (!upstream)
    problems.push(`${COMPOSE}: no service runs the example upstream (dist/examples/upstream/server.js)`)
  for (const [name, service] of Object.entries(services)) {
    const image = fields(service).image
    if (typeof image === 'string' && !isPinnedImage(image))
      problems.push(`${COMPOSE}: service ${name} image ${image} is not pinned (no tag, or :latest)`)
  }
  problems.push(...checkGateway(fields(gateway), redis, assets.knownEnv))
  if (lb) problems.push(...checkLoadBalancer(lb, fields(services[lb]), fields(gateway), assets.nginxConf))
  problems.push(...checkUpstreams(assets.gatewayConfig, services))
  return problems
}

function checkGateway(gateway: Fields, redis: string | undefined, knownEnv: ReadonlySet<string>): string[] {
  const where = `${COMPOSE}: service ${GATEWAY}`
  const env = new Map(Object.entries(fields(gateway.environment)).map(([k, v]) => [k, String(v)]))
  const problems: string[] = []
  const replicas = fields(gateway.deploy).replicas ?? gateway.scale ?? 1
  if (typeof replicas !== 'number' || replicas < 2)
    problems.push(`${where}: needs at least 2 replicas (deploy.replicas)`)
  if (gateway.ports !== undefined)
    problems.push(`${where}: publishes ports; only the load balancer should (replicas would clash)`)
  for (const name of env.keys())
    if (!knownEnv.has(name))
      problems.push(`${where}: environment ${name} is not a variable the gateway reads`)
  const redisUrl = env.get('REDIS_URL')
  if (!redisUrl || hostOf(redisUrl) !== redis)
    problems.push(
      `${where}: REDIS_URL (${redisUrl ?? 'unset'}) must point at the ${redis ?? 'redis'} service`,
    )
  if (env.has('HOST') && env.get('HOST') !== '0.0.0.0') problems.push(`${where}: HOST must be 0.0.0.0`)
  const drainMs = envMs(env, 'DRAIN_DELAY', Number.NaN)
  const shutdownMs = envMs(env, 'SHUTDOWN_TIMEOUT', 30_000)
  if (!(drainMs > 0))
    problems.push(`${where}: DRAIN_DELAY must be set (ms): nothing else deregisters a stopping replica here`)
  const grace = durationSeconds(gateway.stop_grace_period) ?? DOCKER_STOP_GRACE_SECONDS
  const needed = drainMs / 1000 + shutdownMs / 1000 + MARGIN_SECONDS
  if (!(grace >= needed))
    problems.push(
      `${where}: stop_grace_period ${grace} s < DRAIN_DELAY ${drainMs / 1000} + SHUTDOWN_TIMEOUT ${shutdownMs / 1000} + ${MARGIN_SECONDS} = ${needed} s (Docker SIGKILLs after it)`,
    )
  return problems
}

/** nginx reaches every replica, reuses connections safely and never replays a POST. */
function checkLoadBalancer(name: string, lb: Fields, gateway: Fields, conf: string): string[] {
  const problems: string[] = []
  const volumes = Array.isArray(lb.volumes) ? lb.volumes.map(String) : []
  if (!volumes.some((v) => v.includes('/deploy/nginx.conf:')))
    problems.push(`${COMPOSE}: service ${name} does not mount ${NGINX}`)
  if (lb.ports === undefined) problems.push(`${COMPOSE}: service ${name} publishes no port`)
  const upstreamBlock = /upstream\s+\S+\s*\{([^}]*)\}/.exec(conf)?.[1] ?? ''
  const port = String(fields(gateway.environment).PORT ?? 3000)
  const server = /^\s*server\s+([^\s:;]+):(\d+)/m.exec(upstreamBlock)
  if (server?.[1] !== GATEWAY || server[2] !== port)
    problems.push(`${NGINX}: the upstream block must list server ${GATEWAY}:${port}`)
  const idle = /^\s*keepalive_timeout\s+(\S+);/m.exec(upstreamBlock)?.[1]
  const idleSeconds = durationSeconds(idle)
  if (idleSeconds === undefined || idleSeconds >= GATEWAY_KEEP_ALIVE_SECONDS)
    problems.push(
      `${NGINX}: the upstream block must set keepalive_timeout below the gateway's ${GATEWAY_KEEP_ALIVE_SECONDS} s (found ${idle ?? 'none'})`,
    )
  if (/^\s*keepalive\s+\d+;/m.test(upstreamBlock)) {
    if (!/proxy_http_version\s+1\.1;/.test(conf) || !/proxy_set_header\s+Connection\s+"";/.test(conf))
      problems.push(
        `${NGINX}: upstream keepalive needs proxy_http_version 1.1 and proxy_set_header Connection ""`,
      )
  }
  const nextUpstream = /proxy_next_upstream\s+([^;]*);/.exec(conf)?.[1] ?? 'error timeout'
  if (nextUpstream.includes('non_idempotent'))
    problems.push(
      `${NGINX}: proxy_next_upstream non_idempotent would replay tool calls (POST) on another replica`,
    )
  if (!/^\s*proxy_set_header\s+X-Forwarded-For\s/m.test(conf))
    problems.push(`${NGINX}: X-Forwarded-For is not set, so the gateway cannot see client addresses`)
  return problems
}

/** Every upstream of the gateway's config is a service of the file, on the port it listens on. */
function checkUpstreams(config: unknown, services: Fields): string[] {
  const problems: string[] = []
  for (const [name, service] of Object.entries(fields(fields(config).services))) {
    const url = fields(service).upstream
    if (typeof url !== 'string') continue
    const target = fields(services[hostOf(url) ?? ''])
    const port = fields(target.environment).UPSTREAM_PORT
    if (target.image === undefined && target.build === undefined)
      problems.push(
        `deploy/toolgate.compose.yaml: services.${name}.upstream ${url} names no service of ${COMPOSE}`,
      )
    else if (port !== undefined && new URL(url).port !== String(port))
      problems.push(
        `deploy/toolgate.compose.yaml: services.${name}.upstream ${url} is not on UPSTREAM_PORT ${port}`,
      )
  }
  return problems
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname
  } catch {
    return undefined
  }
}

/** Seconds of a Docker or nginx duration: 40s, 1m30s, 1500ms, or a bare number of seconds. */
export function durationSeconds(value: unknown): number | undefined {
  if (typeof value === 'number') return value
  if (typeof value !== 'string' || !/^(\d+(\.\d+)?(h|ms|m|s|us)?)+$/.test(value)) return undefined
  const unit: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001, '': 1 }
  let total = 0
  for (const [, amount, , suffix] of value.matchAll(/(\d+(\.\d+)?)(h|ms|m|s|us)?/g))
    total += Number(amount) * unit[suffix ?? '']!
  return total
}
