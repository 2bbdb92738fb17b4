/**
 * Header names a tool argument can never carry to the upstream (issue 42 class 7). The catalog
 * leaves a header parameter of one of these names out of the tool, with a warning at its pointer,
 * so no advertised tool takes an argument the executor would drop; the executor keeps the same
 * list as a second fence (build-request.ts). Names are lower case: HTTP compares them so.
 *
 * - OpenAPI's own: `Accept`, `Content-Type` and `Authorization` header parameters "SHALL be
 *   ignored" (the media types and security schemes say those).
 * - Framing and hop-by-hop headers (RFC 9110 §7.6.1, RFC 9112): undici writes `host`,
 *   `content-length`, `transfer-encoding` and `connection` itself, and a proxy must not forward
 *   the others; `expect` would stall the request on a `100 Continue`.
 * - `proxy-authorization` and `cookie`: the gateway's credentials and cookie parameters own them.
 *
 * `User-Agent` and `X-Request-Id` are not here: the gateway sends its own only when the caller
 * gave none for a parameter the spec declares.
 */
export const UNCARRIED_HEADERS: ReadonlyMap<string, string> = new Map([
  ['accept', 'OpenAPI ignores an Accept header parameter: the response media types set it'],
  ['content-type', 'OpenAPI ignores a Content-Type header parameter: the request body media type sets it'],
  ['authorization', "OpenAPI ignores an Authorization header parameter: the service's credentials set it"],
  ['host', 'the gateway writes Host from the upstream URL'],
  ['content-length', 'the gateway writes Content-Length from the body it sends'],
  ['transfer-encoding', 'the gateway frames the body itself'],
  ['connection', 'Connection is hop-by-hop: it is never forwarded'],
  ['keep-alive', 'Keep-Alive is hop-by-hop: it is never forwarded'],
  ['upgrade', 'Upgrade is hop-by-hop: it is never forwarded'],
  ['te', 'TE is hop-by-hop: it is never forwarded'],
  ['trailer', 'Trailer is hop-by-hop: it is never forwarded'],
  ['proxy-connection', 'Proxy-Connection is hop-by-hop: it is never forwarded'],
  ['expect', 'the gateway never waits for a 100 Continue'],
  ['proxy-authorization', 'Proxy-Authorization is for a proxy, never for the upstream'],
  ['cookie', "the gateway writes Cookie from the cookie parameters and the service's credentials"],
])
