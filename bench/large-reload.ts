// Issue 14, class 7: /health latency and RSS while the built gateway reloads one very large spec.
//   npm run build && node dist/bench/large-reload.js [operations=103000]
// The gateway starts on a small spec; a generated spec of `operations` operations (103,000 ≈ 60 MB)
// is renamed into its specs directory; /health is asked every 10 ms (open loop) until the reload
// is recorded in /catalog/reloads. Environment variables given to this script (TOOLGATE_CONFIG …)
// reach the gateway. Prints one JSON object.
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { figuresOf, probeHealth, rssMb, sampleRss } from '../test/helpers/health-probe.js'
import { largeSpec } from '../test/helpers/large-spec.js'
import { startServerProcess, stopServerProcess } from '../test/helpers/process.js'
import { serviceSpec } from '../test/helpers/specs-dir.js'

interface Reload {
  readonly outcome: string
  readonly swapped: boolean
  readonly durationMs: number
  readonly error?: string
  readonly failed: readonly string[]
  readonly diff: { added: string[]; removed: string[]; changed: string[] }
}

async function reloads(url: string): Promise<Reload[]> {
  return ((await (await fetch(`${url}/catalog/reloads`)).json()) as { reloads: Reload[] }).reloads
}

/** The diff of a 100,000-tool reload lists every tool: counts only. */
function summary(record: Reload) {
  const { diff, ...rest } = record
  return { ...rest, added: diff.added.length, removed: diff.removed.length, changed: diff.changed.length }
}

async function main() {
  const operations = Number(process.argv[2] ?? 103_000)
  const tmp = await mkdtemp(join(tmpdir(), 'toolgate-large-'))
  const dir = join(tmp, 'specs')
  try {
    await mkdir(dir)
    await writeFile(join(dir, 'small.yaml'), serviceSpec([1, 2]))
    const spec = largeSpec(operations)
    await writeFile(join(tmp, 'large.json'), spec)
    const server = await startServerProcess({
      SPECS_DIR: dir,
      EXAMPLE_UPSTREAM: 'off',
      SPECS_POLL_INTERVAL: '0',
    })
    try {
      const rss = sampleRss(server.child.pid!)
      const idleRssMb = await rss.now()
      const before = (await reloads(server.url)).length
      const probe = probeHealth(server.url)
      await sleep(1_000)
      const triggered = performance.now()
      await rename(join(tmp, 'large.json'), join(dir, 'large.json'))
      let record: Reload | undefined
      while (!record) {
        await sleep(100)
        record = (await reloads(server.url))[before]
      }
      const finished = performance.now()
      await sleep(1_000)
      const samples = await probe.stop()
      const memory = await rss.stop()
      const health = figuresOf(samples, triggered, finished)
      const ready = (await (await fetch(`${server.url}/ready`)).json()) as { tools: number }
      process.stdout.write(
        `${JSON.stringify(
          {
            operations,
            specMb: Math.round(spec.length / 1e5) / 10,
            reload: { ...summary(record), tookMs: Math.round(finished - triggered) },
            toolsServed: ready.tools,
            health: { ...health, errors: health.errors.length, firstErrors: health.errors.slice(0, 3) },
            rssMb: {
              idle: idleRssMb,
              peak: memory.peakRssMb,
              hwm: memory.hwmMb,
              after: await rssMb(server.child.pid!),
            },
          },
          null,
          2,
        )}\n`,
      )
    } finally {
      await stopServerProcess(server)
    }
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
}

await main()
