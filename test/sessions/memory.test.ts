import { createMemorySessionStore } from '../../src/sessions/memory.js'
import { sessionStoreBehaviour } from './behaviour.js'

sessionStoreBehaviour('memory store', async (clock, graceSeconds) =>
  createMemorySessionStore({ now: () => clock.now, graceSeconds }),
)
