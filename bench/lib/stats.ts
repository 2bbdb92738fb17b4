export interface Summary {
  readonly median: number
  readonly min: number
  readonly max: number
  readonly values: readonly number[]
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  const median =
    sorted.length === 0
      ? Number.NaN
      : sorted.length % 2 === 1
        ? sorted[middle]!
        : (sorted[middle - 1]! + sorted[middle]!) / 2
  return { median, min: sorted[0] ?? Number.NaN, max: sorted.at(-1) ?? Number.NaN, values }
}

export const round = (value: number, digits = 2) => Number(value.toFixed(digits))
