import { contentHash } from '../util/content-hash.js'
import { deepFreeze } from '../util/deep-freeze.js'
import { globToRegExp, matchesAnyGlob } from '../util/glob.js'
import { isRecord } from '../util/is-record.js'
import { getOwn } from '../util/own.js'
import { buildViews } from './build-views.js'
import { buildWorkflows } from './build-workflows.js'
import { deriveRemoteService } from './derive-remote.js'
import { checkCredentialSchemes } from './derive-security.js'
import { deriveService, type ServiceSettings, type ToolDraft } from './derive-service.js'
import { DEFAULT_CATALOG_LIMITS } from './limits.js'
import type { LoadedSource } from './load-sources.js'
import type { CatalogOptions, PolicyRule, ServiceOptions } from './options.js'
import { createProblemSink, hasErrors, type ProblemSink } from './problems.js'
import type { LoadedRemote } from './remote-source.js'
import { allowedOrigins } from './server-origin.js'
import type {
  Catalog,
  CredentialSourceSummary,
  Problem,
  Service,
  SourceReport,
  Tool,
  Workflow,
} from './types.js'
import { assignWireNames } from './wire-name.js'
import { workflowTools } from './workflow-tools.js'

export interface CatalogInput {
  readonly sources: readonly LoadedSource[]
  /** Remote tool sources that answered (seed 004); each becomes a service. */
  readonly remotes?: readonly LoadedRemote[]
  /** Files that failed to load; they are listed in the source reports. */
  readonly failed?: readonly string[]
  /** Problems found while loading. */
  readonly problems?: readonly Problem[]
  /** Files whose current version is broken and whose last good version is in `sources` (hot reload). */
  readonly stale?: readonly string[]
}

const VERSION_LENGTH = 16

/**
 * The catalog: a pure function of the loaded sources and the configuration, deep-frozen.
 * A source with an error contributes nothing; the others serve (SPEC §1 "Sources fail alone").
 */
export function buildCatalog(input: CatalogInput, options: CatalogOptions = {}): Catalog {
  const problems: Problem[] = [...(input.problems ?? [])]
  const configSink = createProblemSink(options.configFile ?? 'config', problems)
  const openapi = input.sources.filter((s) => s.kind === 'openapi')
  const naming = nameServices(openapi, options, problems)
  const services: Service[] = []
  const drafts: ToolDraft[] = []
  const failed = new Set(input.failed ?? [])
  for (const source of openapi) {
    const sourceProblems: Problem[] = []
    const names = naming.get(source.sourceId)
    const derived =
      names &&
      deriveServiceSafely(source, names, createProblemSink(source.sourceId, sourceProblems), {
        schemaNodes: options.limits?.schemaNodes ?? DEFAULT_CATALOG_LIMITS.schemaNodes,
        outputSchemaNodes: options.limits?.outputSchemaNodes ?? DEFAULT_CATALOG_LIMITS.outputSchemaNodes,
        outputSchemas: getOwn(options.services ?? {}, names.id)?.outputSchemas !== false,
        ...originSettings(getOwn(options.services ?? {}, names.id)),
      })
    const configured = names && getOwn(options.services ?? {}, names.id)
    if (derived && configured) {
      const sink = createProblemSink(source.sourceId, sourceProblems)
      const sets = {
        [`services.${names.id}.credentials`]: configured.credentials,
        ...configured.clientCredentials,
      }
      for (const [where, credentials] of Object.entries(sets))
        if (credentials) checkCredentialSchemes(derived.service, credentials, where, sink)
    }
    problems.push(...sourceProblems)
    if (!derived || hasErrors(sourceProblems)) {
      failed.add(source.sourceId)
      continue
    }
    services.push(withCredentialSources(derived.service, configured || undefined))
    drafts.push(...derived.tools)
  }
  for (const remote of input.remotes ?? []) {
    const sink = createProblemSink(`remote:${remote.source.id}`, problems)
    if (services.some((service) => service.id === remote.source.id)) {
      sink.error(
        'service-id-duplicate',
        '',
        `service id ${remote.source.id} is already taken by a spec file; give the remote source another id`,
      )
      failed.add(`remote:${remote.source.id}`)
      continue
    }
    const derived = deriveRemoteService(remote, sink)
    services.push(derived.service)
    drafts.push(...derived.tools)
  }
  const operations = applyPolicies(drafts, options.policies ?? [])
  const workflows = buildAllWorkflows(input.sources, services, operations, problems, failed)
  const offered = workflowTools(workflows, operations, services, arazzoTitles(input.sources), (file) =>
    createProblemSink(file, problems),
  )
  for (const service of offered.services) insertInFileOrder(services, service)
  const tools = nameTools(
    [...operations, ...applyPolicies(offered.tools, options.policies ?? [])],
    services,
    problems,
  )
  const views = buildViews(tools, services, options.profiles ?? {}, configSink)
  const version = contentHash({ services, tools, views, workflows }).slice(0, VERSION_LENGTH)
  const sortedProblems = sortProblems(problems)
  return deepFreeze({
    version,
    services,
    tools,
    views,
    workflows,
    sources: sourceReports(input, tools, workflows, failed, sortedProblems),
    problems: sortedProblems,
  })
}

/** What derivation needs to tell a tool whose servers leave its service's origin (issue 41 class 8). */
function originSettings(
  service: ServiceOptions | undefined,
): Pick<ServiceSettings, 'upstream' | 'allowOrigins'> {
  return {
    ...(service?.upstream ? { upstream: service.upstream } : {}),
    ...(service?.allowOrigins ? { allowOrigins: allowedOrigins(service.allowOrigins) } : {}),
  }
}

/** Derivation of one source never takes the others down, whatever the document holds. */
function deriveServiceSafely(
  source: LoadedSource,
  names: { id: string; alias: string },
  sink: ProblemSink,
  settings: ServiceSettings,
) {
  try {
    return deriveService(source, names, sink, settings)
  } catch (err) {
    sink.error('source-too-complex', '', `the document could not be processed: ${(err as Error).message}`)
    return undefined
  }
}

/** Service id from configuration (`services.<id>.source`), else the file name without extension. */
function nameServices(sources: readonly LoadedSource[], options: CatalogOptions, problems: Problem[]) {
  const configured = Object.entries(options.services ?? {})
  const naming = new Map<string, { id: string; alias: string }>()
  const owner = new Map<string, string>()
  for (const source of sources) {
    const byConfig = configured.find(([, service]) => service.source === source.sourceId)
    const id = byConfig?.[0] ?? source.sourceId.replace(/\.(ya?ml|json)$/i, '')
    if (owner.has(id)) {
      createProblemSink(source.sourceId, problems).error(
        'service-id-duplicate',
        '',
        `service id ${id} is already taken by ${owner.get(id)}; give one of them another id in the configuration`,
      )
      continue
    }
    owner.set(id, source.sourceId)
    naming.set(source.sourceId, { id, alias: options.services?.[id]?.alias ?? id })
  }
  const sink = createProblemSink(options.configFile ?? 'config', problems)
  for (const [id, service] of configured) {
    if (owner.has(id)) continue
    sink.warn(
      'service-config-unknown',
      `/services/${id}`,
      `service ${id} is configured${service.source ? ` with source ${service.source}` : ''} but no loaded spec provides it`,
    )
  }
  return naming
}

/** Policies can only raise the bar: a matching rule turns approval on (or explicitly off). */
function applyPolicies(drafts: readonly ToolDraft[], policies: readonly PolicyRule[]): ToolDraft[] {
  if (policies.length === 0) return [...drafts]
  const rules = policies.map((rule) => ({ rule, globs: rule.tools.map(globToRegExp) }))
  return drafts.map((draft) => {
    let safety = draft.safety
    for (const { rule, globs } of rules) {
      if (rule.requiresApproval !== undefined && matchesAnyGlob(draft.id, globs)) {
        safety = { ...safety, requiresApproval: rule.requiresApproval }
      }
    }
    return safety === draft.safety ? draft : { ...draft, safety }
  })
}

function nameTools(drafts: readonly ToolDraft[], services: readonly Service[], problems: Problem[]): Tool[] {
  const alias = new Map(services.map((service) => [service.id, service.alias]))
  const assignment = assignWireNames(
    drafts.map((draft) => ({ ...draft, alias: alias.get(draft.serviceId)! })),
  )
  const tools = drafts.map((draft) => ({ ...draft, wireName: assignment.names.get(draft.id)! }))
  for (const tool of tools) {
    const why = assignment.adjusted.get(tool.id)
    if (why)
      createProblemSink(tool.sourceId, problems).warn(
        'wire-name-adjusted',
        tool.pointer,
        `${why}; ${tool.id} is offered as ${tool.wireName}`,
      )
  }
  return tools.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** A workflow file's service among the spec files' services in file order, before the remote ones. */
function insertInFileOrder(services: Service[], service: Service): void {
  const at = services.findIndex((s) => s.sourceId.startsWith('remote:') || s.sourceId > service.sourceId)
  services.splice(at === -1 ? services.length : at, 0, service)
}

/** `info.title` of each Arazzo file: the title of the service its workflow tools belong to. */
function arazzoTitles(sources: readonly LoadedSource[]): Map<string, string> {
  const titles = new Map<string, string>()
  for (const source of sources) {
    const info = source.document.info
    if (source.kind === 'arazzo' && isRecord(info) && typeof info.title === 'string')
      titles.set(source.sourceId, info.title)
  }
  return titles
}

function buildAllWorkflows(
  sources: readonly LoadedSource[],
  services: readonly Service[],
  tools: readonly ToolDraft[],
  problems: Problem[],
  failed: Set<string>,
): Workflow[] {
  const workflows: Workflow[] = []
  for (const source of sources.filter((s) => s.kind === 'arazzo')) {
    const built = buildWorkflows(source, services, tools, createProblemSink(source.sourceId, problems))
    if (built) workflows.push(...built)
    else failed.add(source.sourceId)
  }
  return workflows
}

function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
}

function sourceReports(
  input: CatalogInput,
  tools: readonly Tool[],
  workflows: readonly Workflow[],
  failed: ReadonlySet<string>,
  problems: readonly Problem[],
): SourceReport[] {
  const loaded = new Map(input.sources.map((source) => [source.sourceId, source]))
  const remotes = new Set((input.remotes ?? []).map((remote) => `remote:${remote.source.id}`))
  const ids = [...new Set([...loaded.keys(), ...remotes, ...(input.failed ?? [])])].sort()
  const stale = new Set(input.stale ?? [])
  return ids.map((sourceId) => {
    const source = loaded.get(sourceId)
    const own = problems.filter((problem) => problem.file === sourceId)
    const count = source?.kind === 'arazzo' ? workflows : tools
    const kind = source?.kind ?? (sourceId.startsWith('remote:') ? 'remote' : 'unknown')
    return {
      sourceId,
      kind,
      ...(source ? { format: source.format } : {}),
      status: failed.has(sourceId) ? 'failed' : stale.has(sourceId) ? 'stale' : 'ok',
      tools: failed.has(sourceId) ? 0 : count.filter((item) => item.sourceId === sourceId).length,
      errors: own.filter((problem) => problem.severity === 'error').length,
      warnings: own.filter((problem) => problem.severity === 'warning').length,
    }
  })
}

/** The service with where its configured credentials come from (issue 45), when any are. */
function withCredentialSources(service: Service, configured: ServiceOptions | undefined): Service {
  if (!configured) return service
  const sources: CredentialSourceSummary[] = []
  if (configured.callerToken) sources.push({ scheme: '*', source: configured.callerToken, owner: 'caller' })
  const add = (credentials: Readonly<Record<string, object>> | undefined, owner: string) => {
    for (const [scheme, shape] of Object.entries(credentials ?? {}))
      sources.push({
        scheme,
        source: 'clientId' in shape ? 'fetched' : owner === 'gateway' ? 'gateway' : 'client',
        owner,
      })
  }
  add(configured.credentials, 'gateway')
  // `clients (<id>).credentials.<service>` → the client id.
  for (const [where, credentials] of Object.entries(configured.clientCredentials ?? {}))
    add(credentials, where.slice('clients ('.length, where.indexOf(')')))
  return sources.length > 0 ? { ...service, credentialSources: sources } : service
}
