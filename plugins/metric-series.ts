/**
 * Metrics of our own for the series a request or a tool call touches, registered in prom-client's
 * registry as metric objects whose `get()` answers what prom-client's `Counter#get` and
 * `Histogram#get` answer, so `/metrics` shows the same text. prom-client 15.1.3 validates and
 * hashes the labels object on every `inc` and `observe`, a `labels()` child included (issue 20:
 * 2.8 % of a tool call's busy CPU in a `--cpu-prof` of row 3a, for three series). Here a label
 * set's series is made once and found again through one `Map` per label, and an update is the
 * additions alone: a tool call's three updates take 38–51 ns of CPU instead of 848–932.
 *
 * The number of series grows with the distinct label values callers pass, as prom-client's did:
 * the callers' values are configured clients, catalog services and upstream statuses, never
 * request text.
 */

/** A label's value as the caller has it; a number is written as prom-client writes it, in decimal. */
export type LabelValue = string | number

export type Labels = Readonly<Record<string, LabelValue>>

/** One label set's count, as `Counter#get` lists it. */
export interface CounterSeries {
  value: number
  readonly labels: Labels
}

/** One label set's buckets (each counted alone; cumulated when scraped), sum and count. */
export interface HistogramSeries {
  readonly labels: Labels
  readonly counts: Float64Array
  sum: number
  count: number
}

/** Series under nested maps, one level per label, in the order the labels are named. */
class SeriesIndex<S> {
  private root = new Map<LabelValue, unknown>()

  /** One label's series (no array per call). */
  find1(a: LabelValue): S | undefined {
    return this.root.get(a) as S | undefined
  }

  /** Two labels' series (no array per call). */
  find2(a: LabelValue, b: LabelValue): S | undefined {
    return (this.root.get(a) as Map<LabelValue, S> | undefined)?.get(b)
  }

  add(values: readonly LabelValue[], series: S) {
    let level = this.root
    for (const value of values.slice(0, -1)) {
      let next = level.get(value) as Map<LabelValue, unknown> | undefined
      if (!next) {
        next = new Map()
        level.set(value, next)
      }
      level = next
    }
    level.set(values.at(-1)!, series)
  }

  clear() {
    this.root = new Map()
  }
}

/** Labels as prom-client kept them: the names in order, each value as the caller's text. */
function labelsOf(names: readonly string[], values: readonly LabelValue[]): Labels {
  const labels: Record<string, string> = {}
  for (const [i, name] of names.entries()) labels[name] = String(values[i])
  return labels
}

/** A labelled counter: `toolgate_…_total` as prom-client's `Counter` showed it (series in order of first use). */
export class SeriesCounter {
  readonly type = 'counter'
  readonly aggregator = 'sum'
  private series: CounterSeries[] = []
  private readonly index = new SeriesIndex<CounterSeries>()

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
  ) {}

  /** `inc({ [labelNames[0]]: a, [labelNames[1]]: b })` of a two-label counter. */
  inc2(a: LabelValue, b: LabelValue) {
    const series = this.index.find2(a, b) ?? this.open([a, b])
    series.value++
  }

  private open(values: readonly LabelValue[]): CounterSeries {
    const series = { value: 0, labels: labelsOf(this.labelNames, values) }
    this.index.add(values, series)
    this.series.push(series)
    return series
  }

  async get() {
    return {
      help: this.help,
      name: this.name,
      type: this.type,
      values: this.series.map(({ value, labels }) => ({ value, labels })),
      aggregator: this.aggregator,
    }
  }

  /** Registry#resetMetrics: every series forgotten, as prom-client's labelled counter forgets them. */
  reset() {
    this.series = []
    this.index.clear()
  }
}

/** A histogram: cumulative buckets, +Inf, sum and count per label set, as prom-client's `Histogram#get` gives them. */
export class SeriesHistogram {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  private series: HistogramSeries[] = []
  /** Raised by `reset`, so holders of series (route hooks) know to open new ones. */
  protected generation = 0

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  protected open(labels: Labels): HistogramSeries {
    const series = { labels, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 }
    this.series.push(series)
    return series
  }

  /** prom-client's bucket rule: the first bound the value does not exceed, else only +Inf. */
  protected record(series: HistogramSeries, value: number) {
    const { bounds } = this
    let bucket = 0
    while (bucket < bounds.length && value > bounds[bucket]!) bucket++
    series.counts[bucket]!++
    series.sum += value
    series.count++
  }

  async get() {
    const values = []
    for (const { labels, counts, sum, count } of this.series) {
      let cumulative = 0
      for (const [i, bound] of this.bounds.entries()) {
        cumulative += counts[i]!
        values.push({
          labels: { le: bound, ...labels },
          value: cumulative,
          metricName: `${this.name}_bucket`,
        })
      }
      values.push(
        { labels: { le: '+Inf', ...labels }, value: count, metricName: `${this.name}_bucket` },
        { labels: { ...labels }, value: sum, metricName: `${this.name}_sum` },
        { labels: { ...labels }, value: count, metricName: `${this.name}_count` },
      )
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }

  /** Registry#resetMetrics: every series forgotten. */
  reset() {
    this.series = []
    this.generation++
  }
}

/** A histogram with one label, its series found by that label's value. */
export class KeyedHistogram extends SeriesHistogram {
  private readonly index = new SeriesIndex<HistogramSeries>()
  private indexed = this.generation

  constructor(
    name: string,
    help: string,
    bounds: readonly number[],
    private readonly labelName: string,
  ) {
    super(name, help, bounds)
  }

  /** `observe({ [labelName]: key }, value)`. */
  observe(key: LabelValue, value: number) {
    if (this.indexed !== this.generation) {
      this.indexed = this.generation
      this.index.clear()
    }
    let series = this.index.find1(key)
    if (!series) {
      series = this.open(labelsOf([this.labelName], [key]))
      this.index.add([key], series)
    }
    this.record(series, value)
  }
}
