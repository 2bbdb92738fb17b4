import { isRecord } from '../util/is-record.js'
import { pointerOf } from '../util/json-pointer.js'
import { setOwn } from '../util/own.js'
import type { ProblemSink } from './problems.js'
import type { SchemaContext } from './schema-context.js'
import type { AuthRequirement, SecurityScheme, Service } from './types.js'

/** components.securitySchemes, normalized as seed 003 says: name, type, scheme, in, parameter name. */
export function readSecuritySchemes(
  document: Record<string, unknown>,
  ctx: SchemaContext,
): Record<string, SecurityScheme> {
  const components = isRecord(document.components) ? document.components : {}
  const schemes = isRecord(components.securitySchemes) ? components.securitySchemes : {}
  const out: Record<string, SecurityScheme> = {}
  for (const [name, raw] of Object.entries(schemes)) {
    const node = ctx.resolveObject(raw, pointerOf('components', 'securitySchemes', name))?.value
    if (!isRecord(node)) continue
    const type = (['apiKey', 'http', 'oauth2', 'openIdConnect', 'mutualTLS'] as const).find(
      (t) => t === node.type,
    )
    if (!type) continue
    const where = (['header', 'query', 'cookie'] as const).find((w) => w === node.in)
    setOwn(out, name, {
      name,
      type,
      ...(typeof node.scheme === 'string' ? { scheme: node.scheme.toLowerCase() } : {}),
      ...(where ? { in: where } : {}),
      ...(typeof node.name === 'string' ? { paramName: node.name } : {}),
      ...(typeof node.bearerFormat === 'string' ? { bearerFormat: node.bearerFormat } : {}),
    })
  }
  return out
}

/** Operation security, else the document's: alternatives of scheme sets; unknown schemes are reported. */
export function readAuth(
  security: unknown,
  service: Service,
  pointer: string,
  sink: ProblemSink,
): AuthRequirement[] {
  if (!Array.isArray(security)) return []
  const requirements: AuthRequirement[] = []
  for (const requirement of security) {
    if (!isRecord(requirement)) continue
    const schemes = Object.entries(requirement).flatMap(([scheme, scopes]) => {
      if (Object.hasOwn(service.securitySchemes, scheme))
        return [{ scheme, scopes: Array.isArray(scopes) ? scopes.map(String) : [] }]
      sink.warn(
        'security-scheme-unknown',
        pointer,
        `security scheme ${scheme} is not defined in components.securitySchemes`,
      )
      return []
    })
    // An empty alternative (`security: [{}, …]`) means authentication is optional.
    requirements.push({ schemes })
  }
  return requirements
}
