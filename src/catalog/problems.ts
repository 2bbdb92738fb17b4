import type { Problem, Severity } from './types.js'

/**
 * Every problem code the catalog reports, with what it means. Errors make their source
 * contribute nothing (SPEC §1 "Sources fail alone"); warnings are repaired where they stand.
 */
export const PROBLEM_CODES = {
  'source-unreadable': 'the file could not be read',
  'source-not-regular-file':
    'the file (or what its link points at) is a FIFO, a device, a socket or a directory; only regular files are read',
  'source-too-large': 'the file is larger than limits.specBytes and is not read',
  'source-outside-directory':
    "the file's real path (links resolved) lies outside the specs directory; it is not read",
  'source-read-timeout': 'reading the file took longer than limits.readTimeoutMs; it is not read',
  'source-not-a-spec-file': 'the file is not .yaml, .yml or .json and is not loaded',
  'source-parse-error': 'the file is not valid YAML or JSON',
  'source-not-a-document': 'the file is neither an OpenAPI, a Swagger nor an Arazzo document',
  'source-unsupported-version': 'the document declares a version toolgate cannot read',
  'source-invalid-structure': 'a required top-level member is missing or has the wrong type',
  'source-ref-unresolved': 'a reference to another file could not be resolved',
  'source-upgrade-failed': 'converting the document to OpenAPI 3.1 failed',
  'source-empty-directory': 'the specs directory holds no spec file',
  'source-kept-last-good':
    'the file is broken now; its last good version keeps serving until it is fixed or removed',
  'source-too-many-operations':
    'the file declares more operations than limits.operations allows; none of its tools is served',
  'source-too-complex': 'the document could not be processed (nested too deeply, or an unexpected failure)',
  'remote-source-failed':
    'a remote tool source did not answer, or answered something that is not a tool list; it serves nothing (or its last good tools)',
  'remote-source-too-large':
    "a remote tool source's answers decode to more than limits.remoteSourceBytes; reading stopped there, it serves nothing (or its last good tools)",
  'service-id-duplicate': 'two sources map to the same service id',
  'service-config-unknown': 'the configuration names a service that no source provides',
  'operation-invalid': 'an operation object is not an object',
  'operation-without-id': 'an operation has no operationId; the method:path fallback ID is used',
  'tool-schema-too-large':
    "an operation's input schema has more nodes than limits.schemaNodes allows; that tool is left out",
  'tool-id-duplicate':
    'two operations of one service share an operationId; the later ones use the method:path ID',
  'wire-name-adjusted': 'a wire name was too long or clashed and got a stable hash suffix',
  'parameter-invalid': 'a parameter object is malformed and is left out',
  'parameter-path-undeclared': 'a path template variable has no parameter; a required string is assumed',
  'parameter-path-optional': 'a path parameter is not marked required; it is treated as required',
  'parameter-header-uncarried':
    'a header parameter names a header no argument can set (Accept, Content-Type, Authorization, Host, Content-Length, a hop-by-hop header, Cookie); it is left out of the tool',
  'parameter-credential':
    "a header, query or cookie parameter has the name an API key of the operation's security goes under; the gateway sends the service's credential there, so it is left out of the tool",
  'parameter-key-sanitized': 'a parameter or property name is not a valid tool argument key and was renamed',
  'argument-clash': 'two inputs want the same argument name; the later one was renamed',
  'ref-dangling': 'a $ref points at nothing; an empty schema stands in',
  'ref-cycle':
    'a $ref only leads to other $refs and back to itself, never to a schema; an empty schema stands in',
  'schema-invalid': 'a schema is not an object; an empty schema stands in',
  'schema-too-deep':
    'a schema nests deeper than toolgate follows; an empty schema stands in below that depth',
  'schema-array-without-items': 'an array schema has no items; items of any value were added',
  'schema-required-unknown':
    'required names a property that nothing in its object (nor the object it is a member of) declares; it was removed from required',
  'schema-allof-closed': "allOf members each forbid the others' properties; they are merged into one object",
  'schema-closed-alternatives':
    'a root closes or requires what only its oneOf/anyOf branches declare; repaired into the branches',
  'schema-false-property': 'a property schema is false; the property was removed',
  'schema-properties-ref':
    'properties is written as a $ref to a map of properties (a bundling artifact); the map it points at is used',
  'schema-keyword-invalid':
    'a keyword has a value JSON Schema 2020-12 forbids (exclusiveMaximum: true, minLength: "3"); translated, or left out',
  'schema-pattern-invalid':
    'a pattern is not an ECMAScript (u-mode) regular expression; translated where exact, or left out',
  'schema-pattern-unsupported':
    'a pattern needs a backtracking engine (lookaround, backreference, a repeat count over 1000); toolgate runs patterns in linear time only, so it is left out and values are not checked against it (the upstream still is)',
  'body-without-content': 'a request body declares no content; the operation takes no body',
  'body-parts-undeclared':
    'a multipart or form body declares no parts or fields; multipart content is sent as the parts its encoding map names, else as one part named file; a form body takes an object of fields',
  'extension-invalid': 'an x- extension has an unexpected shape and is ignored',
  'security-scheme-unknown': 'a security requirement names an undefined scheme; it is ignored',
  'credentials-scheme-mismatch':
    'services.<id>.credentials names a scheme the spec does not define, or an OAuth2 client for a scheme that is not oauth2 or has no token URL; the service is not served (a reload keeps its last good version)',
  'server-origin-foreign':
    "an operation's (or path's) servers point at another origin than its service's; the service's credentials are not sent there unless services.<id>.allowOrigins names it",
  'workflow-invalid': 'an Arazzo workflow or step is malformed',
  'workflow-operation-missing': 'a workflow step names an operation no service provides',
  'workflow-operation-ignored': 'a workflow step names an operation marked x-cli-ignore',
  'workflow-source-unknown': 'a workflow names a source description that is not loaded',
  'workflow-expression-invalid':
    'a workflow runtime expression does not parse, or names a step or workflow that does not exist',
  'workflow-criterion-invalid':
    'a workflow criterion does not parse (simple), has no linear-time form (regex) or no context',
  'workflow-target-missing': 'a goto action or dependsOn names a step or workflow that does not exist',
  'workflow-tool-clash':
    'the workflows of an Arazzo file would be offered under the service ID a spec already has; they are not offered as tools',
  'profile-invalid': 'an agent profile is misconfigured',
} as const

export type ProblemCode = keyof typeof PROBLEM_CODES

/** Collects problems for one file. */
export interface ProblemSink {
  readonly file: string
  report(severity: Severity, code: ProblemCode, pointer: string, message: string): void
  warn(code: ProblemCode, pointer: string, message: string): void
  error(code: ProblemCode, pointer: string, message: string): void
}

export function createProblemSink(file: string, into: Problem[]): ProblemSink {
  const report = (severity: Severity, code: ProblemCode, pointer: string, message: string) => {
    into.push({ code, severity, file, pointer, message })
  }
  return {
    file,
    report,
    warn: (code, pointer, message) => report('warning', code, pointer, message),
    error: (code, pointer, message) => report('error', code, pointer, message),
  }
}

export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((problem) => problem.severity === 'error')
}
