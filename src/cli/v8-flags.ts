import { setFlagsFromString } from 'node:v8'

/**
 * V8's allocation-site pretenuring off, for the whole process, before anything else runs (issue 20).
 * Under a first burst of pipelined requests on cold code, V8 saw near-100 % survival at request-path
 * allocation sites and decided, for the life of the process, to build their objects straight in
 * the old generation; those died there still pointing at young objects, which every scavenge then
 * kept and promoted (≈ 3.2 MB each), with a mark-compact every 2–3 s: 8 of 10 fresh gateways spent
 * 50–64 µs of CPU per MCP `server/discover` instead of 38–49, for their whole life. With it off,
 * 0 of 10 did. Imported first by the CLI, so every way of starting the gateway runs with it.
 */
setFlagsFromString('--no-allocation-site-pretenuring')
