import MiniSearch from 'minisearch'
import {
  documentedPrefixes,
  EXPANSION_WEIGHT,
  queryPrefixes,
  relatedWords,
  serviceNames,
} from './search-signals.js'
import type { Catalog, Service, Tool } from './types.js'

/** One ranked answer of a tool search. */
export interface ToolMatch {
  readonly tool: Tool
  /** BM25 score with field boosts: comparable within one answer, not across queries. */
  readonly score: number
  /**
   * How much of the task the tool's own words cover: the share of the query's searchable words
   * (not the lexicon's) it matched, 0 to 1. Comparable across queries, but no abstention signal:
   * tasks no tool can do score like real ones (bench/search/relevance.ts, "abstain").
   */
  readonly confidence: number
}

export interface ToolSearchOptions {
  /** At most this many matches (the caller bounds it). */
  readonly limit: number
  /** Only tools this accepts (a view, what a client may call); every indexed tool when absent. */
  readonly accept?: (tool: Tool) => boolean
}

/** The search index of one catalog version: ranked retrieval over what identifies each tool. */
export interface ToolSearchIndex {
  /** Ranked matches, best first; empty for a query with no searchable word. */
  search(query: string, options: ToolSearchOptions): ToolMatch[]
  /** Tools indexed (every tool that is not ignored). */
  readonly size: number
}

/** Words of a query past this many are dropped: a 10 KB query costs what a sentence costs. */
export const MAX_QUERY_TERMS = 32

/**
 * Field weights, tuned on the real-world fixtures (test/catalog/search-relevance.test.ts): the
 * name and title say what a tool does; tags and path say what it acts on; the description and
 * parameters hold the words a user has that the name lacks, weighted down because they are long
 * and shared by many tools.
 */
const BOOSTS = {
  name: 3,
  title: 3,
  tags: 1.5,
  path: 2,
  service: 1,
  description: 1,
  parameters: 0.1,
} as const
type Field = keyof typeof BOOSTS
const FIELDS = Object.keys(BOOSTS) as Field[]

/**
 * What ranking reads of a tool besides its words, kept as its document's stored field: MiniSearch
 * hands it to boostDocument with each match and puts it on each result, so neither looks a tool up.
 */
interface ToolFacts {
  readonly tool: Tool
  /** documentWeight: deprecated and pre-release tools rank lower. */
  readonly weight: number
  /** actionOf: what the tool does (list, read, create …). */
  readonly action: string
  /** Identifier prefixes its arguments document (`cus_`, `stake1`), when any. */
  readonly prefixes: ReadonlySet<string> | undefined
}

type IndexedTool = { readonly id: string; readonly facts: ToolFacts } & Record<Field, string>

/**
 * The ranking signals beyond the words (issue 43), switchable to measure each one
 * (bench/search/relevance.ts).
 */
export interface SearchSignals {
  /**
   * The API-domain lexicon's related words (search-signals.ts). Off by default: on the evaluation
   * set it lifts the tune half (recall@5 0.300 → 0.358) and the tasks that share no word with
   * their tool on both halves, but costs the held-out half's worded tasks more (0.367 → 0.308):
   * related words blur what the user's own words already find.
   */
  readonly lexicon?: boolean
  /**
   * A thesaurus's related words for one query word (search-wordnet.ts: WordNet's synonyms),
   * searched at `wordnetWeight`. Off when absent.
   */
  readonly wordnet?: (word: string) => readonly string[]
  /** How much a thesaurus's word weighs against the user's own: WORDNET_WEIGHT when absent. */
  readonly wordnetWeight?: number
  /** Identifier prefixes in the query that a tool's arguments document. */
  readonly values?: boolean
  /** A service the query names. */
  readonly services?: boolean
}

/** Builds the index of a catalog's callable tools (seed 003: ignored tools are not callable). */
export function buildSearchIndex(catalog: Catalog, signals: SearchSignals = {}): ToolSearchIndex {
  const prepared = prepareIndex(catalog, signals)
  prepared.index.addAll(prepared.tools.map(prepared.documentOf))
  return searchOver(prepared)
}

/** Tools indexed per turn of the event loop: ~15 ms of work each. */
const CHUNK = 250

/**
 * The same index, built in chunks that yield to the event loop: 20,000 tools (limits.operations)
 * take about a second to index, which must not stall /health during a reload (issue 14).
 */
export async function buildSearchIndexAsync(catalog: Catalog): Promise<ToolSearchIndex> {
  const prepared = prepareIndex(catalog, {})
  for (let start = 0; start < prepared.tools.length; start += CHUNK) {
    await new Promise((resolve) => setImmediate(resolve))
    prepared.index.addAll(prepared.tools.slice(start, start + CHUNK).map(prepared.documentOf))
  }
  return searchOver(prepared)
}

interface PreparedIndex {
  readonly index: MiniSearch<IndexedTool>
  /** The tools to index, and what is indexed of each. */
  readonly tools: readonly Tool[]
  readonly documentOf: (tool: Tool) => IndexedTool
  /** Every identifier prefix a tool's arguments document. */
  readonly knownPrefixes: ReadonlySet<string>
  /** A word that names one service → that service. */
  readonly serviceNames: ReadonlyMap<string, string>
  readonly signals: SearchSignals
}

function prepareIndex(catalog: Catalog, signals: SearchSignals): PreparedIndex {
  const services = new Map(catalog.services.map((service) => [service.id, service]))
  const index = new MiniSearch<IndexedTool>({
    fields: FIELDS,
    storeFields: ['facts'],
    tokenize: splitWords,
    processTerm: normalizeTerm,
    searchOptions: { boost: BOOSTS },
  })
  const facts = new Map<Tool, ToolFacts>()
  const knownPrefixes = new Set<string>()
  const tools = catalog.tools.filter((tool) => !tool.ignored)
  for (const tool of tools) {
    const documented = documentedPrefixes(tool)
    for (const prefix of documented) knownPrefixes.add(prefix)
    facts.set(tool, {
      tool,
      weight: documentWeight(tool),
      action: actionOf(tool),
      prefixes: documented.size > 0 ? documented : undefined,
    })
  }
  const boilerplate = sharedDescriptions(tools)
  const documentOf = (tool: Tool) =>
    searchableText(tool, services.get(tool.serviceId), boilerplate, facts.get(tool)!)
  return {
    index,
    tools,
    documentOf,
    knownPrefixes,
    serviceNames: serviceNames(catalog.services),
    signals,
  }
}

/** Whether a tool takes a value of any of the kinds the query holds; no array per call (it runs per match). */
function takesAny(taken: ReadonlySet<string> | undefined, asked: ReadonlySet<string>): boolean {
  if (!taken) return false
  for (const prefix of asked) if (taken.has(prefix)) return true
  return false
}

/** How much a value of the kind a tool takes, and a service the query names, lift a tool. */
const VALUE_BOOST = 2
const SERVICE_BOOST = 2
/** How much a thesaurus's related word weighs against the user's own: below the lexicon's, as it is noisier. */
const WORDNET_WEIGHT = 0.3

function searchOver(prepared: PreparedIndex): ToolSearchIndex {
  // Only what searching reads: the build's facts by tool and documentOf go when the build ends.
  const { index, knownPrefixes, serviceNames, signals } = prepared
  return {
    size: prepared.tools.length,
    search(query, { limit, accept }) {
      const { terms, asked, words } = queryTerms(query)
      if (terms.length === 0 || limit <= 0) return []
      // The lexicon's related words, weighed below the user's own (off by default: see SearchSignals).
      const own = new Set(terms)
      const related = (signals.lexicon === true ? relatedWords(words) : [])
        .map(normalizeTerm)
        .filter((term): term is string => term !== null && !own.has(term))
      const expansions = new Set(related)
      // The thesaurus's words for each searchable query word, the user's and the lexicon's left out.
      const thesaurus = signals.wordnet
      const synonymWeight = signals.wordnetWeight ?? WORDNET_WEIGHT
      const synonyms = new Set(
        thesaurus
          ? [...new Set(words.map((word) => word.toLowerCase()))]
              .filter((word) => normalizeTerm(word) !== null)
              .flatMap((word) => thesaurus(word).map(normalizeTerm))
              .filter((term): term is string => term !== null && !own.has(term) && !expansions.has(term))
          : [],
      )
      const values =
        signals.values === false ? new Set<string>() : queryPrefixes(query.slice(0, 4_096), knownPrefixes)
      const named = new Set(
        signals.services === false ? [] : words.flatMap((word) => serviceNames.get(word.toLowerCase()) ?? []),
      )
      // The action a user asks for (list, read, create …) only reorders tools the words found;
      // so do a value of the kind a tool takes and the service the query names. MiniSearch calls
      // this for every field of every tool each term matches (tens of thousands a query at 20,000
      // tools), so it reads the facts MiniSearch hands it and looks nothing up.
      const boostDocument = (_id: string, _term: string, stored?: Record<string, unknown>) => {
        const facts = stored!.facts as ToolFacts
        let boost = facts.weight * (asked.has(facts.action) ? ACTION_BOOST : 1)
        if (values.size > 0 && takesAny(facts.prefixes, values)) boost *= VALUE_BOOST
        if (named.size > 0 && named.has(facts.tool.serviceId)) boost *= SERVICE_BOOST
        return boost
      }
      const results = index.search(
        { combineWith: 'OR', queries: [...terms, ...expansions, ...synonyms] },
        {
          boostTerm: (term) =>
            expansions.has(term) ? EXPANSION_WEIGHT : synonyms.has(term) ? synonymWeight : 1,
          prefix: (term) => term.length >= 4,
          fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
          maxFuzzy: 2,
          weights: { prefix: 0.4, fuzzy: 0.3 },
          boostDocument,
        },
      )
      // The best `limit` the caller accepts: the same as MiniSearch's filter then the first
      // `limit` (its sort is stable), without asking about the thousands of weaker matches.
      const matches: ToolMatch[] = []
      for (const result of results) {
        const { tool } = result.facts as ToolFacts
        if (accept && !accept(tool)) continue
        matches.push({
          tool,
          score: result.score,
          confidence:
            Math.round((100 * result.queryTerms.filter((term) => own.has(term)).length) / terms.length) / 100,
        })
        if (matches.length === limit) break
      }
      return matches
    },
  }
}

/** Parameters described alike in more tools than this are boilerplate (Kubernetes' `dryRun`, `pretty`). */
const BOILERPLATE_USES = 10

/**
 * Parameter descriptions repeated across many tools: they say nothing about any one of them, and
 * their words (`dryRun`: "all dry run stages") would lift every mutating tool for "running" or "staging".
 */
function sharedDescriptions(tools: readonly Tool[]): Set<string> {
  const uses = new Map<string, number>()
  for (const tool of tools)
    for (const description of argumentDescriptions(tool))
      if (description) uses.set(description, (uses.get(description) ?? 0) + 1)
  return new Set([...uses].filter(([, count]) => count > BOILERPLATE_USES).map(([text]) => text))
}

/** The description of each argument (the input schema's top-level properties: parameters and body fields). */
function argumentDescriptions(tool: Tool): string[] {
  const properties = Object.values(
    (tool.inputSchema.properties ?? {}) as Record<string, { description?: unknown }>,
  )
  return properties.map((property) => (typeof property.description === 'string' ? property.description : ''))
}

/** What identifies a tool, one text per field. */
function searchableText(
  tool: Tool,
  service: Service | undefined,
  boilerplate: Set<string>,
  facts: ToolFacts,
): IndexedTool {
  const properties = Object.keys((tool.inputSchema.properties ?? {}) as object)
  return {
    id: tool.id,
    facts,
    name: [tool.wireName, tool.operationId ?? ''].join(' '),
    title: tool.title,
    tags: tool.tags.join(' '),
    path: tool.path.replace(/\{[^}]*\}/g, ' '),
    service: [tool.serviceId, service?.alias ?? '', service?.title ?? ''].join(' '),
    description: tool.description,
    parameters: [
      ...properties,
      ...argumentDescriptions(tool).map((description) => (boilerplate.has(description) ? '' : description)),
      tool.requestBody?.description ?? '',
    ].join(' '),
  }
}

/** Query words, deduplicated, and the actions they ask for; operators are plain words here. */
function queryTerms(query: string): { terms: string[]; asked: Set<string>; words: string[] } {
  const terms = new Set<string>()
  const asked = new Set<string>()
  const words: string[] = []
  for (const word of splitWords(query.slice(0, 4_096))) {
    const action = ACTION_WORDS.get(word.toLowerCase())
    if (action) asked.add(action)
    words.push(word)
    const term = normalizeTerm(word)
    if (term) terms.add(term)
    if (terms.size === MAX_QUERY_TERMS) break
  }
  return { terms: [...terms], asked, words }
}

/** How much the asked action weighs against the words (tuned on the relevance tasks). */
const ACTION_BOOST = 2

/** What users say for each action a tool performs. */
const ACTION_WORDS = new Map<string, string>(
  Object.entries({
    list: ['list', 'lists', 'show', 'which', 'all', 'every', 'enumerate', 'browse', 'find', 'search'],
    read: ['get', 'read', 'fetch', 'retrieve', 'view', 'details', 'download', 'inspect', 'status'],
    create: ['create', 'add', 'new', 'make', 'register', 'deploy', 'issue', 'buy', 'send', 'start', 'open'],
    update: ['update', 'modify', 'change', 'edit', 'set', 'rename', 'scale', 'replace', 'mark'],
    delete: ['delete', 'remove', 'kill', 'tear', 'destroy', 'drop', 'erase', 'purge'],
  }).flatMap(([action, words]) => words.map((word) => [word, action] as const)),
)

/** The verbs operation ids start with, as actions; others are read from the method and path. */
const ID_VERBS: Readonly<Record<string, string>> = {
  list: 'list',
  watch: 'watch',
  read: 'read',
  fetch: 'read',
  create: 'create',
  delete: 'delete',
  replace: 'update',
  patch: 'update',
  update: 'update',
  connect: 'connect',
  search: 'list',
}

/** The action a tool performs: its operation id's verb, or its method on a collection or an item. */
function actionOf(tool: Tool): string {
  const verb = ID_VERBS[splitWords(tool.operationId ?? '')[0]?.toLowerCase() ?? '']
  if (verb) return verb
  const onItem = /\}[^/]*$/.test(tool.path)
  if (tool.method === 'get') return onItem ? 'read' : 'list'
  if (tool.method === 'post') return onItem ? 'update' : 'create'
  return tool.method === 'delete' ? 'delete' : 'update'
}

const WORKFLOW_WEIGHT = 0.6

/**
 * Deprecated tools and pre-release API versions (`v1beta1`, `v2alpha1`) rank below their stable
 * siblings, which match the same words. A workflow tool speaks the words of all its steps: it
 * ranks below the one operation that matches them as well (issue 47).
 */
function documentWeight(tool: Tool): number {
  let weight = tool.deprecated ? 0.5 : 1
  if (/\bv\d+(alpha|beta)\d*\b/i.test(tool.path)) weight *= 0.8
  if (tool.workflow) weight *= WORKFLOW_WEIGHT
  return weight
}

const WORD = /[\p{L}\p{N}]+/gu

/** Words of a text: split on punctuation, snake_case and camelCase (`listCoreV1Pods` → list core v1 pods). */
export function splitWords(text: string): string[] {
  const spaced = text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
  return spaced.match(WORD) ?? []
}

/**
 * Stop words of requests as a user phrases them: they match every tool's description and
 * only blur the ranking.
 */
const STOP_WORDS = new Set(
  (
    'a an and are as at be by can do does for from has have how i in into is it its me my of on or our ' +
    'please should so that the their them then there these this to us want we what when where which ' +
    'who will with would you your all any some show every'
  ).split(' '),
)

/** Lower case, stop words dropped, then stemmed so that `refunds`, `refunded` and `refund` meet. */
export function normalizeTerm(term: string): string | null {
  const lower = term.toLowerCase()
  if (lower.length > 64 || STOP_WORDS.has(lower)) return null
  return SYNONYMS.get(lower) ?? stem(lower)
}

/**
 * Verbs users say for what APIs name otherwise, mapped to one stem (both sides of the index
 * go through it): `remove` meets `delete`, `fetch` meets `get`.
 */
const SYNONYMS = new Map<string, string>(
  Object.entries({
    remove: 'delet',
    removes: 'delet',
    removing: 'delet',
    erase: 'delet',
    destroy: 'delet',
    fetch: 'get',
    retrieve: 'get',
    retrieves: 'get',
    modify: 'updat',
    edit: 'updat',
    change: 'updat',
    patch: 'updat',
    replace: 'updat',
    add: 'creat',
    enumerate: 'list',
  }),
)

/**
 * A light English suffix stemmer (plural, -ing, -ed, -er, -ion, -ment …): no maintained
 * stemmer is a dependency, and API vocabulary needs only these folds. Both the index and the
 * queries pass through it, so only consistency matters, not linguistics.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word
  let w = word
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`
  else if (/(sses|xes|ches|shes)$/.test(w)) w = w.slice(0, -2)
  else if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1)
  for (const suffix of ['ations', 'ation', 'ments', 'ment', 'ing', 'ion', 'ed', 'er', 'e']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length)
      break
    }
  }
  if (w.endsWith('y') && w.length > 3) w = `${w.slice(0, -1)}i`
  return w.replace(/(.)\1$/, '$1')
}
