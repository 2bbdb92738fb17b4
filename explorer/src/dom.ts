/** Children `h` takes: nodes, text, nothing (null, undefined, false) and lists of these. */
export type Child = Node | string | number | null | undefined | false | readonly Child[]

type Handler = (event: Event) => void
export type Props = Record<string, string | number | boolean | Handler | null | undefined>

/**
 * An element with attributes, `on<event>` handlers and children. Text is always a text node (never
 * parsed as markup), and `style` is never set as an attribute: the page's CSP allows no inline style.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  applyProps(element, props)
  append(element, children)
  return element
}

const SVG = 'http://www.w3.org/2000/svg'

/** An SVG element, for the budget chart. */
export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, tag)
  applyProps(element, props)
  append(element, children)
  return element
}

function applyProps(element: Element, props: Props | null | undefined): void {
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value)
    else if (name === 'style') throw new Error('inline style is refused by the CSP')
    else element.setAttribute(name, value === true ? '' : String(value))
  }
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    if (Array.isArray(child)) append(parent, child)
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)))
  }
}

let numbers: Intl.NumberFormat | undefined

/**
 * `12,345`, as Intl's `en` format writes it. Integers — every count, size and token figure the
 * page shows — are grouped here: a fresh page's first Intl.NumberFormat loads ICU's data, 15–70 ms
 * measured in headless Chromium, which the tool list would otherwise pay before it shows (bench
 * row 8). Anything else goes to Intl, made on first need.
 */
export function formatNumber(n: number): string {
  if (Number.isSafeInteger(n)) {
    const sign = n < 0 || Object.is(n, -0) ? '-' : ''
    return sign + String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ',')
  }
  numbers ??= new Intl.NumberFormat('en')
  return numbers.format(n)
}

/** `12,345 B`, `1.2 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 10_000) return `${formatNumber(bytes)} B`
  if (bytes < 10_000_000) return `${(bytes / 1000).toFixed(1)} kB`
  return `${(bytes / 1_000_000).toFixed(1)} MB`
}

/** A pretty-printed JSON block that keyboard users can scroll (axe: scrollable-region-focusable). */
export function jsonBlock(value: unknown, label: string): HTMLPreElement {
  return h('pre', { class: 'json', tabindex: 0, 'aria-label': label }, JSON.stringify(value, null, 2))
}
