// Row 12 (issue 47): a three-step Arazzo workflow called as one tool, against a client making the
// same three tool calls through the same gateway in sequence, each carrying the previous answer's
// ID into the next call. Closed loop, the same concurrency on both sides: completed sequences per
// second, the ratio of the workflow's to the client's.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { request } from 'undici'
import { GATEWAY_ENV, type RowContext } from '../lib/context.js'
import { itemsSetup } from '../lib/items-spec.js'
import { type Started, startGateway, startItemsUpstream, stop } from '../lib/processes.js'
import { formatNumber, type RowResult, rangeOf } from '../lib/report.js'
import { round, summarize } from '../lib/stats.js'

const CONCURRENCY = 16

/** Three getItem steps, each reading the ID the previous one answered. */
const FLOW = `arazzo: 1.0.1
info: { title: Item flows, version: 1.0.0 }
sourceDescriptions:
  - { name: items, url: ./items.yaml, type: openapi }
workflows:
  - workflowId: threeItems
    inputs: { type: object, required: [itemId], properties: { itemId: { type: string } } }
    steps:
      - stepId: first
        operationId: getItem
        parameters: [{ name: itemId, in: path, value: $inputs.itemId }]
        successCriteria: [{ condition: $statusCode == 200 }]
        outputs: { id: $response.body#/id }
      - stepId: second
        operationId: getItem
        parameters: [{ name: itemId, in: path, value: $steps.first.outputs.id }]
        successCriteria: [{ condition: $statusCode == 200 }]
        outputs: { id: $response.body#/id }
      - stepId: third
        operationId: getItem
        parameters: [{ name: itemId, in: path, value: $steps.second.outputs.id }]
        successCriteria: [{ condition: $statusCode == 200 }]
        outputs: { id: $response.body#/id }
    outputs: { id: $steps.third.outputs.id }
`

const HEADERS = { 'content-type': 'application/json' }

export async function workflowRows(ctx: RowContext): Promise<RowResult[]> {
  const started: Started[] = []
  try {
    const upstream = await startItemsUpstream(ctx.cpus.upstream)
    started.push(upstream)
    const { specs, configFile } = await itemsSetup(
      ctx.tmp,
      'workflow',
      `services:\n  items:\n    upstream: ${upstream.url}\n`,
    )
    await writeFile(join(specs, 'flows.arazzo.yaml'), FLOW)
    ctx.log('row 12: starting the gateway with a three-step workflow')
    const gateway = await startGateway(
      'gateway',
      { ...GATEWAY_ENV, SPECS_DIR: specs, TOOLGATE_CONFIG: configFile },
      ctx.cpus.server,
    )
    started.push(gateway)
    const problems: string[] = []
    const workflow = async () => {
      const { statusCode, body } = await request(`${gateway.url}/tools/flows_three_items`, {
        method: 'POST',
        headers: HEADERS,
        body: '{"itemId":"42"}',
      })
      const answer = (await body.json()) as { outputs?: { id?: string } }
      if (statusCode !== 200 || answer.outputs?.id !== '42') problems.push(`workflow answered ${statusCode}`)
    }
    const client = async () => {
      let id = '42'
      for (let i = 0; i < 3; i++) {
        const { statusCode, body } = await request(`${gateway.url}/tools/items_get_item`, {
          method: 'POST',
          headers: HEADERS,
          body: JSON.stringify({ itemId: id }),
        })
        const answer = (await body.json()) as { id?: string }
        if (statusCode !== 200 || typeof answer.id !== 'string') problems.push(`call answered ${statusCode}`)
        id = answer.id ?? id
      }
    }
    await closedLoop(workflow, ctx.options.warmup)
    await closedLoop(client, ctx.options.warmup)
    const ratios: number[] = []
    const candidates: number[] = []
    const baselines: number[] = []
    for (let run = 0; run < ctx.options.runs; run++) {
      const candidate = await closedLoop(workflow, ctx.options.duration)
      const baseline = await closedLoop(client, ctx.options.duration)
      candidates.push(candidate)
      baselines.push(baseline)
      ratios.push(candidate / baseline)
    }
    const ratio = summarize(ratios)
    return [
      {
        id: '12',
        row: 'workflow',
        figure: 'three-step workflow as one tool vs the three calls by a client in sequence',
        metric: 'sequences/s ratio',
        value: round(ratio.median, 3),
        target: { op: '>=', value: 1 },
        candidate: `${formatNumber(summarize(candidates).median)} seq/s`,
        baseline: `${formatNumber(summarize(baselines).median)} seq/s`,
        range: rangeOf(ratio),
        problems: [...new Set(problems)].slice(0, 5),
        details: { concurrency: CONCURRENCY, candidates, baselines, ratios },
      },
    ]
  } finally {
    for (const server of started.reverse()) await stop(server)
  }
}

/** Completed sequences per second over `seconds`, CONCURRENCY at a time. */
async function closedLoop(sequence: () => Promise<void>, seconds: number): Promise<number> {
  const end = performance.now() + seconds * 1000
  let done = 0
  const worker = async () => {
    while (performance.now() < end) {
      await sequence()
      done++
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  return done / ((performance.now() - started) / 1000)
}
