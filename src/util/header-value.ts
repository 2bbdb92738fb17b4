/**
 * What the gateway puts in an HTTP header value: tab and printable ASCII. Line breaks, controls
 * and DEL would split or break the request (undici refuses them before sending), and non-ASCII has
 * no agreed encoding in a header.
 */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/

export function isHeaderValue(text: string): boolean {
  return HEADER_VALUE.test(text)
}
