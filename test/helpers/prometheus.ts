import assert from 'node:assert/strict'

/** One sample line of the Prometheus text format: `name{label="value",…} value`. */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Exposition {
  /** `# TYPE` of each family. */
  readonly types: ReadonlyMap<string, string>
  readonly samples: readonly Sample[]
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y
const FAMILY_SUFFIXES = ['_bucket', '_sum', '_count', '_total', '_created', '']

/**
 * Parses the Prometheus text exposition format (version 0.0.4) strictly: every line must be a
 * comment, blank, or a well-formed sample whose family was declared by `# TYPE` first; label
 * values are unescaped. A malformed line fails the assertion with the line.
 */
export function parsePrometheusText(text: string): Exposition {
  const types = new Map<string, string>()
  const samples: Sample[] = []
  for (const [index, line] of text.split('\n').entries()) {
    const where = `line ${index + 1}: ${line}`
    if (line.trim() === '') continue
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line)
      if (type) {
        assert.ok(!types.has(type[1]!), `TYPE declared twice: ${where}`)
        types.set(type[1]!, type[2]!)
      } else assert.match(line, /^# (HELP \S+ .*|.*)$/, where)
      continue
    }
    const match = SAMPLE.exec(line)
    assert.ok(match, `not a sample: ${where}`)
    const [, name, labelText = '', valueText] = match
    assert.ok(NAME.test(name!), where)
    const labels: Record<string, string> = {}
    LABEL.lastIndex = 0
    while (LABEL.lastIndex < labelText.length) {
      const label = LABEL.exec(labelText)
      assert.ok(label, `bad labels: ${where}`)
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
    }
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText)
    // Prometheus parses values with Go's ParseFloat, which takes NaN in any case; prom-client
    // writes `Nan` for a gauge with no sample yet (the event-loop lag right after start).
    assert.ok(!Number.isNaN(value) || valueText!.toLowerCase() === 'nan', `bad value: ${where}`)
    const family = FAMILY_SUFFIXES.map((suffix) =>
      name!.endsWith(suffix) ? name!.slice(0, name!.length - suffix.length) : '',
    )
      .concat(name!)
      .find((candidate) => candidate && types.has(candidate))
    assert.ok(family, `sample before its # TYPE: ${where}`)
    samples.push({ name: name!, labels, value })
  }
  return { types, samples }
}

/** The value of the one sample named `name` whose labels include `labels`. */
export function sampleValue(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number {
  const matches = exposition.samples.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )
  assert.equal(matches.length, 1, `${name}${JSON.stringify(labels)} matched ${matches.length} samples`)
  return matches[0]!.value
}
