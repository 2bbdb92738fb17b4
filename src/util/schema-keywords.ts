/** JSON Schema 2020-12 keywords that hold sub-schemas, by the shape of their value. */

/** A map of name → schema. */
export const SCHEMA_MAP_KEYWORDS = ['patternProperties', 'dependentSchemas'] as const
/** A list of schemas. */
export const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const
/** One schema (or a boolean). */
export const SCHEMA_KEYWORDS = [
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
] as const
