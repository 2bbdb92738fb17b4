// Row 10's collector: node:http taking OTLP/HTTP trace exports (protobuf or JSON) and answering
// success with an empty message, as a collector does; `GET /received` says how much it got, so
// the row can check the traced gateway did export.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { announce, KEEP_ALIVE_TIMEOUT_MS } from './listening.js'

let exports = 0
let bytes = 0
const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/received') {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ exports, bytes }))
    return
  }
  request.on('data', (chunk: Buffer) => {
    bytes += chunk.length
  })
  request.once('end', () => {
    exports++
    const json = String(request.headers['content-type']).startsWith('application/json')
    // An empty ExportTraceServiceResponse: no bytes in protobuf, `{}` in JSON.
    response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' })
    response.end(json ? '{}' : '')
  })
})
server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
server.listen(0, '127.0.0.1', () => {
  announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
})
