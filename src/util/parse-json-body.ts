import secureJson from 'secure-json-parse'

export type ParsedBody =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: string }

/**
 * A request body that claims JSON, parsed as Fastify's own parser does (secure-json-parse: a
 * `__proto__` or `constructor.prototype` key is refused, never merged), but saying what was wrong.
 */
export function parseJsonBody(text: string): ParsedBody {
  if (text.trim() === '') return { ok: false, problem: 'the body is empty; send a JSON object' }
  try {
    return { ok: true, value: secureJson.parse(text, undefined, PROTOTYPE_KEYS_REFUSED) }
  } catch (err) {
    const message = (err as Error).message
    if (/prototype property/.test(message))
      return {
        ok: false,
        problem:
          'the body has a "__proto__" or "constructor.prototype" key, which is refused (prototype poisoning)',
      }
    return { ok: false, problem: `the body is not valid JSON (${message.slice(0, 200)})` }
  }
}

const PROTOTYPE_KEYS_REFUSED = { protoAction: 'error', constructorAction: 'error' } as const
