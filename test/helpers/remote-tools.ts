/** A seed-004 remote tool as a source lists it: one POST endpoint that needs the source's token. */
export const remoteTool = {
  name: 'node.create',
  description: 'Create a node',
  inputSchema: { type: 'object', properties: { title: { type: 'string' } } },
  endpoint: '/api/nodes',
  method: 'POST',
  requiresAuth: true,
}
