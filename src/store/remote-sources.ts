import type { Problem } from '../catalog/index.js'
import {
  fetchRemoteTools,
  type LoadedRemote,
  type RemoteReadOptions,
  RemoteSourceError,
  type RemoteSourceOptions,
} from '../catalog/remote-source.js'

/** Remote sources as the catalog takes them (seed 004): those that answered, and those that did not. */
export interface RemoteState {
  readonly remotes: readonly LoadedRemote[]
  readonly failed: readonly string[]
  readonly problems: readonly Problem[]
  /** Sources that failed this time and serve the tools they answered with last time. */
  readonly stale: readonly string[]
}

export const NO_REMOTES: RemoteState = { remotes: [], failed: [], problems: [], stale: [] }

/** Remote sources as the build process gets them: tokens stay in the gateway (the build never needs one). */
export function remoteWithoutTokens(remote: RemoteState): RemoteState {
  return {
    ...remote,
    remotes: remote.remotes.map(({ source, tools }) => {
      const { token: _token, ...plain } = source
      return { source: plain, tools }
    }),
  }
}

/**
 * Queries every remote source. At boot (no `previous`) a required source that fails stops the
 * start with its message; an optional one is reported as failed, and the rest serve. On a reload
 * nothing stops: a source that fails keeps the tools it answered with last time, if any. Each
 * source is read within `read`'s bounds (limits.remoteSourceBytes): one over them fails alone.
 */
export async function loadRemoteSources(
  sources: readonly RemoteSourceOptions[],
  previous?: RemoteState,
  read: RemoteReadOptions = {},
): Promise<RemoteState> {
  const results = await Promise.all(
    sources.map(async (source) => {
      try {
        return { source, tools: await fetchRemoteTools(source, read) }
      } catch (err) {
        if (!(err instanceof RemoteSourceError) || (source.required && !previous)) throw err
        return { source, error: err.message, code: err.code }
      }
    }),
  )
  const remotes: LoadedRemote[] = []
  const failed: string[] = []
  const stale: string[] = []
  const problems: Problem[] = []
  for (const result of results) {
    const file = `remote:${result.source.id}`
    if (result.tools) {
      remotes.push({ source: result.source, tools: result.tools })
      continue
    }
    problems.push({
      code: result.code,
      severity: 'error',
      file,
      pointer: '',
      message: result.error,
    })
    const last = previous?.remotes.find((remote) => remote.source.id === result.source.id)
    if (last) {
      remotes.push(last)
      stale.push(file)
    } else failed.push(file)
  }
  return { remotes, failed, problems, stale }
}
