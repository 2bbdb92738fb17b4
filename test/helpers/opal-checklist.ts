/**
 * Seed 000's validation checklist, as code: every rule it lists for a discovery document.
 * Returns the broken rules (empty when the document passes).
 */
const TYPES = new Set(['string', 'number', 'boolean', 'object', 'array'])
const FUNCTION_KEYS = ['name', 'description', 'parameters', 'endpoint', 'http_method']
const PARAMETER_KEYS = ['name', 'type', 'description', 'required']

export function opalChecklist(document: unknown): string[] {
  const broken: string[] = []
  if (document === null || typeof document !== 'object' || Array.isArray(document))
    return ['top level is not an object']
  const doc = document as Record<string, unknown>
  if (!Array.isArray(doc.functions)) return ['top-level object has no functions array']
  for (const key of ['name', 'description', 'version']) {
    if (key in doc && typeof doc[key] !== 'string') broken.push(`top-level ${key} is not a string`)
  }
  const names = new Set<string>()
  const endpoints = new Set<string>()
  for (const [i, fn] of (doc.functions as Record<string, unknown>[]).entries()) {
    const at = `functions[${i}] (${String(fn?.name)})`
    for (const key of FUNCTION_KEYS) if (!(key in fn)) broken.push(`${at}: missing ${key}`)
    for (const key of Object.keys(fn))
      if (![...FUNCTION_KEYS, 'auth_requirements'].includes(key)) broken.push(`${at}: unexpected key ${key}`)
    if (typeof fn.name !== 'string' || !/^[a-zA-Z0-9_]{1,64}$/.test(fn.name))
      broken.push(`${at}: name is not alphanumeric + underscores`)
    if (typeof fn.description !== 'string' || fn.description.trim() === '')
      broken.push(`${at}: description is empty`)
    if (!Array.isArray(fn.parameters)) broken.push(`${at}: parameters is not an array`)
    if (typeof fn.endpoint !== 'string' || !fn.endpoint.startsWith('/tools/'))
      broken.push(`${at}: endpoint is not relative /tools/…`)
    if (fn.http_method !== 'POST') broken.push(`${at}: http_method is not POST`)
    if (names.has(String(fn.name))) broken.push(`${at}: duplicate name`)
    if (endpoints.has(String(fn.endpoint))) broken.push(`${at}: duplicate endpoint`)
    names.add(String(fn.name))
    endpoints.add(String(fn.endpoint))
    for (const [j, p] of (
      (Array.isArray(fn.parameters) ? fn.parameters : []) as Record<string, unknown>[]
    ).entries()) {
      const where = `${at}.parameters[${j}] (${String(p?.name)})`
      for (const key of PARAMETER_KEYS) if (!(key in p)) broken.push(`${where}: missing ${key}`)
      for (const key of Object.keys(p))
        if (!PARAMETER_KEYS.includes(key)) broken.push(`${where}: forbidden key ${key}`)
      if (typeof p.name !== 'string' || p.name === '') broken.push(`${where}: name is not a string`)
      if (!TYPES.has(String(p.type))) broken.push(`${where}: type ${String(p.type)} is not allowed`)
      if (typeof p.description !== 'string' || p.description.trim() === '')
        broken.push(`${where}: description is empty`)
      if (typeof p.required !== 'boolean') broken.push(`${where}: required is not a boolean`)
    }
  }
  return broken
}
