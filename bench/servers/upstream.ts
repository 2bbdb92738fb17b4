// Row 3's upstream: node:http answering every request with the same small JSON once the request
// body is read, so the gateway, reply-from and a direct call all cost it exactly the same.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { announce } from './listening.js'

const ITEM = Buffer.from(JSON.stringify({ id: '42', name: 'widget', price: 9.5, tags: ['bench', 'item'] }))

const server = createServer((request, response) => {
  request.resume()
  request.once('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': ITEM.length })
    response.end(ITEM)
  })
})
server.keepAliveTimeout = 72_000 // outlives the clients' pools, so no connection is reset mid-run
server.listen(0, '127.0.0.1', () => {
  announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
})
