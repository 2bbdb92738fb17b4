import { fileURLToPath } from 'node:url'
import ts from 'typescript'

/** Returns the paths of the fields an object has and its Kubernetes type does not. */
export type KnownFieldsCheck = (object: Record<string, unknown>) => string[]

/**
 * kubernetes-models validates types but accepts any unknown field (a typo like `readinesProbe`
 * passes and the API server drops it). The package ships no JSON schemas, only compiled
 * validators and TypeScript declarations, one interface per Kubernetes type. So this walks the
 * object against those declarations with the TypeScript checker: every key must be a property
 * of the interface at its place (maps such as labels are index signatures and take any key).
 */
export function buildKnownFieldsCheck(
  kinds: readonly { apiVersion: string; kind: string }[],
): KnownFieldsCheck {
  const files = new Map(
    kinds.map(({ apiVersion, kind }) => [`${apiVersion}/${kind}`, declarationFile(apiVersion, kind)]),
  )
  const program = ts.createProgram([...files.values()], { noEmit: true, types: [], skipLibCheck: true })
  const checker = program.getTypeChecker()
  const rootTypes = new Map<string, ts.Type>()
  for (const [key, file] of files) {
    const source = program.getSourceFile(file)
    const module = source && checker.getSymbolAtLocation(source)
    const kind = key.split('/').at(-1)
    const symbol = module && checker.getExportsOfModule(module).find((s) => s.name === `I${kind}`)
    if (!symbol) throw new Error(`kubernetes-models declares no I${kind} in ${file}`)
    rootTypes.set(key, checker.getDeclaredTypeOfSymbol(symbol))
  }
  return (object) => {
    const type = rootTypes.get(`${object.apiVersion}/${object.kind}`)
    if (!type) return [`no kubernetes-models type for ${object.apiVersion}/${object.kind}`]
    const unknown: string[] = []
    walk(checker, object, type, '', unknown)
    return unknown
  }
}

/** The declaration file of a kind: the package exports `<apiVersion>/<Kind>` for each. */
function declarationFile(apiVersion: string, kind: string): string {
  const module = import.meta.resolve(`kubernetes-models/${apiVersion}/${kind}`)
  return fileURLToPath(module).replace(/\.m?js$/, '.d.ts')
}

function walk(checker: ts.TypeChecker, value: unknown, type: ts.Type, path: string, unknown: string[]): void {
  if (value === null || typeof value !== 'object') return
  const nonNull = checker.getNonNullableType(type)
  if (Array.isArray(value)) {
    const element = nonNull.getNumberIndexType()
    if (element)
      for (const [i, item] of value.entries()) walk(checker, item, element, `${path}[${i}]`, unknown)
    return
  }
  const candidates = (nonNull.isUnion() ? nonNull.types : [nonNull]).filter(
    (t) => (t.flags & ts.TypeFlags.Object) !== 0,
  )
  // Not an object type at all: a type error, which the kubernetes-models validation reports.
  if (candidates.length === 0) return
  for (const [key, child] of Object.entries(value)) {
    const property = candidates.map((t) => t.getProperty(key)).find((p) => p !== undefined)
    const next = property
      ? checker.getTypeOfSymbol(property)
      : candidates.map((t) => t.getStringIndexType()).find((t) => t !== undefined)
    const childPath = path ? `${path}.${key}` : key
    if (next) walk(checker, child, next, childPath, unknown)
    else unknown.push(childPath)
  }
}
