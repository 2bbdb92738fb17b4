// Fastify's internal symbols (fastify has no `exports` map, so the file is importable). The MCP fast
// path reads the headers a reply was given from `kReplyHeaders` instead of `reply.getHeaders()`,
// which copies them and Node's into a new object per request.
declare module 'fastify/lib/symbols.js' {
  const symbols: { readonly kReplyHeaders: unique symbol }
  export default symbols
}
