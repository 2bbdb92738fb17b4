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
      ...clientCredentialsTokenUrl(type, node),
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

/** An oauth2 scheme's client-credentials token endpoint, when it names an absolute http(s) URL. */
function clientCredentialsTokenUrl(type: string, node: Record<string, unknown>): { tokenUrl?: string } {
  if (type !== 'oauth2' || !isRecord(node.flows) || !isRecord(node.flows.clientCredentials)) return {}
  const { tokenUrl } = node.flows.clientCredentials
  return typeof tokenUrl === 'string' && /^https?:\/\/\S+$/.test(tokenUrl) ? { tokenUrl } : {}
}

/**
 * The configured credentials of a service against its spec (issue 45): each names a scheme the
 * spec defines, and an OAuth2 client (`clientId`) an oauth2 scheme with a token URL, configured
 * or the spec's `flows.clientCredentials.tokenUrl`. Errors name the configuration path.
 */
export function checkCredentialSchemes(
  service: Service,
  credentials: Readonly<Record<string, object>>,
  where: string,
  sink: ProblemSink,
): void {
  const defined = Object.keys(service.securitySchemes)
  for (const [name, credential] of Object.entries(credentials)) {
    const path = `${where}.${name}`
    const scheme = Object.hasOwn(service.securitySchemes, name) ? service.securitySchemes[name] : undefined
    if (!scheme) {
      sink.error(
        'credentials-scheme-mismatch',
        '/components/securitySchemes',
        `${path}: the spec defines no security scheme ${name} (it defines ${defined.join(', ') || 'none'})`,
      )
      continue
    }
    if (!('clientId' in credential)) continue
    if (scheme.type !== 'oauth2')
      sink.error(
        'credentials-scheme-mismatch',
        pointerOf('components', 'securitySchemes', name),
        `${path}: an OAuth2 client (clientId) needs an oauth2 scheme; ${name} is ${scheme.type}`,
      )
    else if (!('tokenUrl' in credential) && !scheme.tokenUrl)
      sink.error(
        'credentials-scheme-mismatch',
        pointerOf('components', 'securitySchemes', name),
        `${path}: scheme ${name} has no flows.clientCredentials.tokenUrl; set ${path}.tokenUrl`,
      )
  }
}
