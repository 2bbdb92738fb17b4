import { envMap, envMs, type Fields, fieldList, fields, isPinnedImage } from './fields.js'

/** One object of the kustomize render, with the file it came from (for the messages). */
export interface RenderedObject {
  readonly file: string
  readonly object: Fields
}

export interface KubernetesPolicyOptions {
  /** Environment variables the gateway reads; any other name on its container is a typo. */
  readonly knownEnv: ReadonlySet<string>
}

const GATEWAY = 'toolgate'
const GATEWAY_PORT = 3000
const PRODUCTION_DRAIN_DELAY_MS = 5_000 // the gateway's default with NODE_ENV=production
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000
const DEFAULT_GRACE_SECONDS = 30 // Kubernetes' default terminationGracePeriodSeconds
const MIN_PRESTOP_SECONDS = 5 // gateway.md §5.5: endpoint removal needs a few seconds to spread
const MARGIN_SECONDS = 5 // the process exits ≥ 5 s before SIGKILL

/**
 * The operations rules of SPEC §5/§6 and gateway.md §5.5 over the rendered manifests; each
 * problem names the file, the object and what is wrong.
 */
export function checkKubernetesPolicy(
  objects: readonly RenderedObject[],
  options: KubernetesPolicyOptions,
): string[] {
  const problems: string[] = []
  const byKind = (kind: string) => objects.filter(({ object }) => object.kind === kind)
  for (const workload of byKind('Deployment')) problems.push(...checkEveryContainer(workload))
  const gateway = byKind('Deployment').find(({ object }) => fields(object.metadata).name === GATEWAY)
  if (!gateway) return [...problems, `k8s: no Deployment named ${GATEWAY}`]
  const where = `${gateway.file}: Deployment ${GATEWAY}`
  const podLabels = fields(fields(fields(gateway.object.spec).template).metadata).labels
  const hpas = byKind('HorizontalPodAutoscaler').filter(
    ({ object }) => fields(fields(object.spec).scaleTargetRef).name === GATEWAY,
  )
  const autoscaled = hpas.length > 0
  problems.push(...checkGatewayDeployment(gateway, objects, autoscaled, options).map((p) => `${where}: ${p}`))
  const services = byKind('Service').filter((s) => matchesLabels(fields(s.object.spec).selector, podLabels))
  if (services.length === 0) problems.push(`k8s: no Service selects the ${GATEWAY} pods`)
  const pdbs = byKind('PodDisruptionBudget').filter((p) =>
    matchesLabels(fields(fields(p.object.spec).selector).matchLabels, podLabels),
  )
  if (pdbs.length === 0) problems.push(`k8s: no PodDisruptionBudget covers the ${GATEWAY} pods`)
  for (const pdb of pdbs) problems.push(...checkDisruptionBudget(pdb))
  if (hpas.length === 0) problems.push(`k8s: no HorizontalPodAutoscaler scales Deployment ${GATEWAY}`)
  for (const hpa of hpas) problems.push(...checkAutoscaler(hpa))
  return problems
}

/** Every container of every workload: requests set, a pinned image. */
function checkEveryContainer({ file, object }: RenderedObject): string[] {
  const where = `${file}: Deployment ${fields(object.metadata).name}`
  const problems: string[] = []
  for (const container of podContainers(object)) {
    const requests = fields(fields(container.resources).requests)
    if (requests.cpu === undefined || requests.memory === undefined)
      problems.push(`${where}: container ${container.name} sets no CPU and memory requests`)
    if (!isPinnedImage(String(container.image)))
      problems.push(
        `${where}: container ${container.name} image ${container.image} is not pinned (no tag, or :latest)`,
      )
  }
  return problems
}

function checkGatewayDeployment(
  { object }: RenderedObject,
  objects: readonly RenderedObject[],
  autoscaled: boolean,
  options: KubernetesPolicyOptions,
): string[] {
  const spec = fields(object.spec)
  const pod = fields(fields(spec.template).spec)
  const container = podContainers(object).find((c) => c.name === GATEWAY)
  if (!container) return [`no container named ${GATEWAY}`]
  const env = envMap(container.env)
  const problems = [
    ...checkRollout(spec, autoscaled),
    ...checkListen(container, env),
    ...checkProbes(container),
    ...checkTermination(pod, container, env),
    ...checkVolumes(pod, container, env, objects),
  ]
  for (const name of env.keys())
    if (!options.knownEnv.has(name)) problems.push(`env ${name} is not a variable the gateway reads`)
  const redisUrl = env.get('REDIS_URL')
  if (redisUrl === undefined)
    problems.push('REDIS_URL is not set: sessions would not be shared by the replicas')
  else if (!objects.some(({ object: o }) => o.kind === 'Service' && isServiceHost(redisUrl, o)))
    problems.push(`REDIS_URL ${redisUrl} names no Service of the render`)
  return problems
}

/** With an HPA, spec.replicas must be absent: every apply would reset the HPA's count to it. */
function checkRollout(spec: Fields, autoscaled: boolean): string[] {
  const problems: string[] = []
  if (autoscaled && spec.replicas !== undefined)
    problems.push(
      'sets replicas although an HPA scales it: every kubectl apply would reset the replica count',
    )
  if (!autoscaled && (typeof spec.replicas !== 'number' || spec.replicas < 2))
    problems.push('replicas must be at least 2')
  const strategy = fields(spec.strategy)
  const maxUnavailable = fields(strategy.rollingUpdate).maxUnavailable
  if (strategy.type !== 'RollingUpdate' || (maxUnavailable !== 0 && maxUnavailable !== '0%'))
    problems.push('the rolling update must set maxUnavailable: 0 (a new pod is Ready before an old one goes)')
  return problems
}

function checkListen(container: Fields, env: ReadonlyMap<string, string>): string[] {
  const problems: string[] = []
  if (env.get('HOST') !== '0.0.0.0')
    problems.push(
      `env HOST is ${env.get('HOST') ?? 'unset'}: the gateway must listen on 0.0.0.0 for the probes`,
    )
  const port = Number(env.get('PORT') ?? GATEWAY_PORT)
  const http = fieldList(container.ports).find((p) => p.name === 'http')
  if (http?.containerPort !== port) problems.push(`no container port named http on ${port} (PORT)`)
  return problems
}

function checkProbes(container: Fields): string[] {
  const problems: string[] = []
  const probe = (name: string) => fields(fields(container[name]).httpGet)
  const onHttpPort = (p: Fields) => p.port === 'http' || p.port === GATEWAY_PORT
  const readiness = probe('readinessProbe')
  const liveness = probe('livenessProbe')
  const startup = probe('startupProbe')
  if (readiness.path !== '/ready' || !onHttpPort(readiness))
    problems.push(`readinessProbe must GET /ready on the http port, not ${String(readiness.path)}`)
  if (liveness.path !== '/health' || !onHttpPort(liveness))
    problems.push(
      `livenessProbe must GET /health on the http port, not ${String(liveness.path)}: liveness never depends on Redis (SPEC §5)`,
    )
  if (startup.path === undefined || !onHttpPort(startup)) problems.push('no startupProbe on the http port')
  return problems
}

/** The grace period must outlast preStop + DRAIN_DELAY + SHUTDOWN_TIMEOUT + a margin. */
function checkTermination(pod: Fields, container: Fields, env: ReadonlyMap<string, string>): string[] {
  const problems: string[] = []
  const preStop = preStopSeconds(fields(fields(container.lifecycle).preStop))
  if (preStop === undefined)
    problems.push(
      'lifecycle.preStop must sleep (exec: sleep N, or sleep.seconds) while the endpoint is removed',
    )
  else if (preStop < MIN_PRESTOP_SECONDS) problems.push(`the preStop sleep (${preStop} s) is under 5 s`)
  const production = env.get('NODE_ENV') === 'production'
  const drainMs = envMs(env, 'DRAIN_DELAY', production ? PRODUCTION_DRAIN_DELAY_MS : 0)
  const shutdownMs = envMs(env, 'SHUTDOWN_TIMEOUT', DEFAULT_SHUTDOWN_TIMEOUT_MS)
  if (Number.isNaN(drainMs)) problems.push(`DRAIN_DELAY ${env.get('DRAIN_DELAY')} is not milliseconds`)
  if (Number.isNaN(shutdownMs))
    problems.push(`SHUTDOWN_TIMEOUT ${env.get('SHUTDOWN_TIMEOUT')} is not milliseconds`)
  const grace =
    typeof pod.terminationGracePeriodSeconds === 'number'
      ? pod.terminationGracePeriodSeconds
      : DEFAULT_GRACE_SECONDS
  const needed = (preStop ?? 0) + drainMs / 1000 + shutdownMs / 1000 + MARGIN_SECONDS
  if (!(grace >= needed))
    problems.push(
      `terminationGracePeriodSeconds ${grace} < preStop ${preStop ?? 0} + DRAIN_DELAY ${drainMs / 1000} + SHUTDOWN_TIMEOUT ${shutdownMs / 1000} + ${MARGIN_SECONDS} = ${needed} s`,
    )
  return problems
}

/** Seconds a preStop handler sleeps: the native sleep action or an exec of sleep. */
export function preStopSeconds(handler: Fields): number | undefined {
  const native = fields(handler.sleep).seconds
  if (typeof native === 'number') return native
  const command = fields(handler.exec).command
  if (!Array.isArray(command)) return undefined
  const line = command.map(String).join(' ')
  const match = /^(?:\/bin\/|\/usr\/bin\/)?sleep (\d+)$/.exec(line) ?? /(?:^|-c )sleep (\d+)$/.exec(line)
  return match ? Number(match[1]) : undefined
}

/** The specs come from a ConfigMap directory mount (never subPath: it would never update). */
function checkVolumes(
  pod: Fields,
  container: Fields,
  env: ReadonlyMap<string, string>,
  objects: readonly RenderedObject[],
): string[] {
  const problems: string[] = []
  const volumes = new Map(fieldList(pod.volumes).map((v) => [String(v.name), v]))
  const mounts = fieldList(container.volumeMounts)
  for (const mount of mounts)
    if (
      (mount.subPath ?? mount.subPathExpr) !== undefined &&
      isConfigMapVolume(volumes.get(String(mount.name)))
    )
      problems.push(`volume ${mount.name} is mounted with subPath, so ConfigMap updates never reach the pod`)
  const mountAt = (path: string) => mounts.find((m) => trimSlash(String(m.mountPath)) === trimSlash(path))
  const specsDir = env.get('SPECS_DIR')
  const specsMount = specsDir === undefined ? undefined : mountAt(specsDir)
  if (!specsMount || !isConfigMapVolume(volumes.get(String(specsMount.name))))
    problems.push(`SPECS_DIR (${specsDir ?? 'unset'}) is not a ConfigMap volume mounted as a directory`)
  const configFile = env.get('TOOLGATE_CONFIG')
  if (configFile !== undefined) {
    const mount = mountAt(configFile.slice(0, configFile.lastIndexOf('/')))
    const name = fields(volumes.get(String(mount?.name))).configMap
    const configMap = objects.find(
      ({ object }) => object.kind === 'ConfigMap' && fields(object.metadata).name === fields(name).name,
    )
    const key = configFile.slice(configFile.lastIndexOf('/') + 1)
    if (!configMap || fields(configMap.object.data)[key] === undefined)
      problems.push(`TOOLGATE_CONFIG ${configFile} is not a key of a ConfigMap of the render mounted there`)
  }
  return problems
}

function checkDisruptionBudget({ file, object }: RenderedObject): string[] {
  const spec = fields(object.spec)
  const where = `${file}: PodDisruptionBudget ${fields(object.metadata).name}`
  const problems: string[] = []
  if (spec.maxUnavailable !== 1 || spec.minAvailable !== undefined)
    problems.push(`${where}: must set maxUnavailable: 1 (and no minAvailable)`)
  if (spec.unhealthyPodEvictionPolicy !== 'AlwaysAllow')
    problems.push(
      `${where}: unhealthyPodEvictionPolicy must be AlwaysAllow, so a pod that is not Ready cannot block a drain`,
    )
  return problems
}

function checkAutoscaler({ file, object }: RenderedObject): string[] {
  const spec = fields(object.spec)
  const behavior = fields(spec.behavior)
  const where = `${file}: HorizontalPodAutoscaler ${fields(object.metadata).name}`
  const problems: string[] = []
  if (object.apiVersion !== 'autoscaling/v2') problems.push(`${where}: must be autoscaling/v2`)
  if (behavior.scaleUp === undefined || behavior.scaleDown === undefined)
    problems.push(`${where}: behavior must set scaleUp and scaleDown explicitly`)
  if (typeof spec.minReplicas !== 'number' || spec.minReplicas < 2)
    problems.push(`${where}: minReplicas must be at least 2`)
  return problems
}

function podContainers(workload: Fields): Fields[] {
  return fieldList(fields(fields(fields(workload.spec).template).spec).containers)
}

function isConfigMapVolume(volume: Fields | undefined): boolean {
  if (!volume) return false
  if (volume.configMap !== undefined) return true
  const sources = fieldList(fields(volume.projected).sources)
  return sources.length > 0 && sources.every((s) => s.configMap !== undefined)
}

function matchesLabels(selector: unknown, labels: unknown): boolean {
  const wanted = Object.entries(fields(selector))
  return wanted.length > 0 && wanted.every(([key, value]) => fields(labels)[key] === value)
}

/** redis://name:6379 or redis://name.namespace.svc… names the Service `name`. */
function isServiceHost(url: string, service: Fields): boolean {
  try {
    return new URL(url).hostname.split('.')[0] === fields(service.metadata).name
  } catch {
    return false
  }
}

const trimSlash = (path: string) => path.replace(/\/+$/, '')
