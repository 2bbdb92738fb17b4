// The catalog build process (issue 14, issue 44): one child process per build, forked by
// catalog-builder.ts, so a stalled or runaway build is stopped with a signal, and when it ends all
// its memory goes back to the system with the process. It reads the specs directory itself;
// everything else arrives as plain data over the IPC channel, and everything it answers is bytes.

import type { CatalogDiff } from '../catalog/index.js'
import { createFsSourceReader, type SpecReadLimits } from '../catalog/index.js'
import type { RenderedViews } from '../formats/index.js'
import { countTokenSamples, type TokenSizes } from '../formats/index.js'
import type { BuildInputs } from './build-inputs.js'
import { buildVersion, type VersionRequest } from './build-version.js'
import {
  type BuilderMemory,
  type CatalogBytes,
  type DocumentBytes,
  decodeFingerprint,
  encodeCatalog,
  encodeFingerprint,
  encodeViews,
  lazyLastGood,
  serializeLastGood,
} from './build-wire.js'

/** The one message the parent sends first: what to build. */
export interface WorkerInput {
  readonly request: Omit<VersionRequest, 'previous'>
  readonly memory: BuilderMemory
  readonly read?: SpecReadLimits
}

/**
 * What the build process sends, in this order: when the version changed, the catalog's bytes and
 * each eager document, a message each; then the answer; then, once asked, the tokens. A message's
 * typed arrays all come back as views of its one buffer, and the gateway reads a message whole
 * before it decodes it (its chunks, then one copy): one message per document keeps that transient
 * to one document's size, and lets each document's bytes, and the catalog's once decoded, be
 * freed on their own.
 */
export type WorkerMessage =
  | { readonly type: 'catalog'; readonly catalog: CatalogBytes }
  | { readonly type: 'document'; readonly document: DocumentBytes }
  | ({ readonly type: 'answer' } & WorkerAnswer)
  | ({ readonly type: 'tokens' } & TokenAnswer)

export type WorkerAnswer =
  | {
      readonly ok: true
      readonly changed: boolean
      readonly diff: CatalogDiff
      /** The views' sizes, when changed; their documents came before, a message each. */
      readonly sizes?: RenderedViews['sizes']
      readonly memory: BuilderMemory
      readonly inputs?: BuildInputs
    }
  | { readonly ok: false; readonly error: string }

/** The build's last message, after a changed build: each view's and format's tokens. */
export interface TokenAnswer {
  readonly tokens: TokenSizes
}

/** Sends a message; resolves once it is written to the channel. */
function send(message: WorkerMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    process.send!(message, undefined, {}, (err) => (err ? reject(err) : resolve()))
  })
}

async function run(input: WorkerInput) {
  const samples = await answer(input)
  if (!samples) return
  // The new version serves already; its token counts follow (/catalog waits), once the parent
  // asks: after its swap, not beside its decode (DeferredTokens in catalog-builder.ts).
  // (COUNT_TOKENS, the only message after the first).
  await new Promise((resolve) => process.once('message', resolve))
  await send({ type: 'tokens', tokens: countTokenSamples(samples) })
}

/** Builds, sends the catalog's bytes and the answer; returns what is left to count. */
async function answer(input: WorkerInput) {
  const lastGood = lazyLastGood(input.memory.lastGood)
  const previous = input.memory.fingerprint && decodeFingerprint(input.memory.fingerprint)
  const built = await buildVersion(
    { ...input.request, deferTokens: true, ...(previous ? { previous } : {}) },
    createFsSourceReader(input.read),
    lastGood,
  )
  if (built.changed) await send({ type: 'catalog', catalog: encodeCatalog(built.catalog) })
  const views = built.views && encodeViews(built.views)
  for (const document of views?.documents ?? []) await send({ type: 'document', document })
  await send({
    type: 'answer',
    ok: true,
    changed: built.changed,
    diff: built.diff,
    ...(views ? { sizes: views.sizes } : {}),
    memory: {
      lastGood: serializeLastGood(built.lastGood, lastGood.bytesOf),
      fingerprint: encodeFingerprint(built.fingerprint),
    },
    ...(built.inputs ? { inputs: built.inputs } : {}),
  })
  return built.views?.tokenSamples
}

// The parent's channel closing ends the process: the parent is done with it, stopped it, or died.
process.on('disconnect', () => process.exit(0))
process.once('message', (input: WorkerInput) => {
  run(input)
    .catch((err: Error) => send({ type: 'answer', ok: false, error: err.message }))
    .catch(() => process.exit(1))
    .finally(() => process.disconnect())
})
