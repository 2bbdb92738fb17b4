import fp from 'fastify-plugin'
import type { GatewayConfig } from '../src/config/load-config.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: GatewayConfig
  }
}

export interface ConfigPluginOptions {
  /** Validated and frozen by loadConfig before the app is built (fail at boot, not at a request). */
  readonly config: GatewayConfig
}

export default fp<ConfigPluginOptions>(
  async function config(fastify, opts) {
    fastify.decorate('config', opts.config)
  },
  { name: 'config' },
)
