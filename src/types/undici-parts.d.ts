// The two undici modules the gateway uses, imported alone (undici's index also loads fetch,
// WebSocket, EventSource, caches and mocks: ≈ 1.4 MB more source on the main thread). undici has
// no `exports` map, so these paths are importable; their types are the index's.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici'
  export default Agent
}
declare module 'undici/lib/web/fetch/formdata.js' {
  export { FormData } from 'undici'
}
