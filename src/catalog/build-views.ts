import { globToRegExp, matchesAnyGlob } from '../util/glob.js'
import type { ProfileOptions } from './options.js'
import type { ProblemSink } from './problems.js'
import type { Safety, Service, Tool, View } from './types.js'

export const DISCOVER_VIEW = 'discover'

/**
 * seed 003: a `discover` view with every tool that is neither ignored nor hidden, and one more
 * view per configured agent profile.
 */
export function buildViews(
  tools: readonly Tool[],
  services: readonly Service[],
  profiles: Readonly<Record<string, ProfileOptions>>,
  sink: ProblemSink,
): Record<string, View> {
  // Null prototype: `?profile=toString` or a session for `constructor` must find no view.
  const views: Record<string, View> = Object.create(null)
  views[DISCOVER_VIEW] = {
    name: DISCOVER_VIEW,
    toolIds: tools.filter((t) => !t.ignored && !t.hidden).map((t) => t.id),
  }
  for (const [name, profile] of Object.entries(profiles)) {
    if (name === DISCOVER_VIEW) {
      sink.warn(
        'profile-invalid',
        `/profiles/${name}`,
        `a profile cannot be named ${DISCOVER_VIEW}; it is ignored`,
      )
      continue
    }
    views[name] = {
      name,
      ...(profile.description ? { description: profile.description } : {}),
      toolIds: tools.filter(profileFilter(name, profile, services, sink)).map((t) => t.id),
    }
  }
  return views
}

function profileFilter(
  name: string,
  profile: ProfileOptions,
  services: readonly Service[],
  sink: ProblemSink,
) {
  const serviceIds = profile.services && resolveServices(name, profile.services, services, sink)
  const include = profile.include?.map(globToRegExp)
  const exclude = profile.exclude?.map(globToRegExp) ?? []
  const matchesGlobs = (tool: Tool, globs: readonly RegExp[]) =>
    matchesAnyGlob(tool.id, globs) || matchesAnyGlob(tool.wireName, globs)
  return (tool: Tool): boolean => {
    if (tool.ignored || (tool.hidden && !profile.includeHidden)) return false
    if (serviceIds && !serviceIds.has(tool.serviceId)) return false
    if (profile.groups && !profile.groups.includes(tool.group)) return false
    if (profile.tags && !tool.tags.some((tag) => profile.tags!.includes(tag))) return false
    if (include && !matchesGlobs(tool, include)) return false
    if (matchesGlobs(tool, exclude)) return false
    return matchesSafety(tool.safety, profile.safety ?? {})
  }
}

function resolveServices(
  profile: string,
  names: readonly string[],
  services: readonly Service[],
  sink: ProblemSink,
) {
  const ids = new Set<string>()
  for (const name of names) {
    const service = services.find((s) => s.id === name || s.alias === name)
    if (service) ids.add(service.id)
    else
      sink.warn(
        'profile-invalid',
        `/profiles/${profile}/services`,
        `profile ${profile} names service ${name}, which no source provides`,
      )
  }
  return ids
}

function matchesSafety(safety: Safety, wanted: Partial<Safety>): boolean {
  return Object.entries(wanted).every(([key, flag]) => safety[key as keyof Safety] === flag)
}
