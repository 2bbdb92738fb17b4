import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { watch } from 'chokidar'

export interface WatchOptions {
  /** Quiet time after the last event before a reload starts (editors and kubelet write in bursts). */
  readonly debounceMs: number
  /** A burst never delays the reload longer than this after its first event. */
  readonly maxWaitMs: number
  /** Period of the safety-net check of the directory's fingerprint; 0 turns it off. */
  readonly pollMs: number
  readonly onChange: (trigger: 'watch' | 'poll') => void
  readonly onError: (err: Error) => void
}

export interface SpecsWatcher {
  close(): Promise<void>
}

/** Nested directories worth watching: `shared/` for referenced files, `..data/` in a ConfigMap. */
const WATCH_DEPTH = 4

/**
 * Watches the specs directory, not its files: Kubernetes replaces a mounted ConfigMap by renaming
 * a new `..data` symlink over the old one, after which a watch on a file hears nothing again
 * (research/gateway.md §5.3). Any event means "maybe changed"; events are debounced, and a
 * periodic fingerprint check catches whatever a watcher missed. Resolves once the watcher is ready.
 */
export async function watchSpecs(dir: string, options: WatchOptions): Promise<SpecsWatcher> {
  let timer: NodeJS.Timeout | undefined
  let burstStartedAt = 0
  let fingerprint = await fingerprintOf(dir)
  const fire = () => {
    timer = undefined
    // The change is being handled: the next periodic check must not report it again.
    fingerprintOf(dir).then(
      (current) => {
        fingerprint = current
      },
      () => {},
    )
    options.onChange('watch')
  }
  const schedule = () => {
    const now = Date.now()
    if (timer === undefined) burstStartedAt = now
    else if (now - burstStartedAt >= options.maxWaitMs) return
    clearTimeout(timer)
    timer = setTimeout(fire, Math.min(options.debounceMs, options.maxWaitMs - (now - burstStartedAt)))
  }
  const watcher = watch(dir, { ignoreInitial: true, depth: WATCH_DEPTH, followSymlinks: true })
  watcher.on('all', schedule)
  watcher.on('error', (err) => options.onError(err as Error))
  await new Promise<void>((resolve) => watcher.once('ready', resolve))

  let polling = false
  const check = async () => {
    if (polling) return
    polling = true
    try {
      const current = await fingerprintOf(dir)
      if (current !== fingerprint) {
        fingerprint = current
        options.onChange('poll')
      }
    } catch (err) {
      options.onError(err as Error)
    } finally {
      polling = false
    }
  }
  const poll = options.pollMs > 0 ? setInterval(check, options.pollMs) : undefined
  poll?.unref()

  return {
    async close() {
      clearTimeout(timer)
      clearInterval(poll)
      await watcher.close()
    },
  }
}

/**
 * Size, modification time and inode of every file under `dir`, links followed (so a ConfigMap
 * swap changes it even when a file's size and time happen to match). Dot-entries are skipped:
 * `..data` is reached through the links that point into it.
 */
export async function fingerprintOf(dir: string, depth = WATCH_DEPTH): Promise<string> {
  const parts: string[] = []
  const walk = async (path: string, prefix: string, level: number) => {
    const names = (await readdir(path)).filter((name) => !name.startsWith('.')).sort()
    for (const name of names) {
      const info = await stat(join(path, name)).catch(() => undefined)
      if (!info) continue
      if (info.isDirectory()) {
        if (level < depth) await walk(join(path, name), `${prefix}${name}/`, level + 1)
      } else parts.push(`${prefix}${name}:${info.size}:${info.mtimeMs}:${info.ino}`)
    }
  }
  await walk(dir, '', 0)
  return parts.join('\n')
}
