import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { runTool } from '../deploy/run-tool.js'
import { closedPort } from './upstreams.js'

/** Debian's nginx; `.ci/run` installs it. */
export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path))

export interface Nginx {
  readonly url: string
  /** Rewrites the upstream list and reloads gracefully (`nginx -s reload`), as an orchestrator removing an endpoint would. */
  setUpstreams(servers: readonly string[]): Promise<void>
  errorLog(): Promise<string>
}

/**
 * A real nginx load balancer in front of `servers` (host:port), on a free loopback port, configured
 * like deploy/nginx.conf: round robin, upstream keep-alive, no retry of a non-idempotent request
 * once sent. Stopped after the test.
 */
export async function startNginx(
  t: { after(fn: () => Promise<unknown>): void },
  prefix: string,
  servers: readonly string[],
): Promise<Nginx> {
  if (!NGINX) throw new Error('nginx is not installed: apt-get install nginx (.ci/run does)')
  const port = await closedPort()
  await mkdir(join(prefix, 'tmp'), { recursive: true })
  const conf = join(prefix, 'nginx.conf')
  const write = (upstreams: readonly string[]) =>
    writeFile(
      conf,
      [
        process.getuid?.() === 0 ? 'user root;' : '',
        'worker_processes 1;',
        `error_log ${join(prefix, 'error.log')} warn;`,
        `pid ${join(prefix, 'nginx.pid')};`,
        'events { worker_connections 1024; }',
        'http {',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
          (kind) => `  ${kind}_temp_path ${join(prefix, 'tmp', kind)};`,
        ),
        '  upstream toolgate {',
        ...upstreams.map((server) => `    server ${server} max_fails=1 fail_timeout=2s;`),
        '    keepalive 32;',
        '    keepalive_timeout 60s;',
        '  }',
        '  server {',
        `    listen 127.0.0.1:${port};`,
        '    location / {',
        '      proxy_pass http://toolgate;',
        '      proxy_http_version 1.1;',
        '      proxy_set_header Connection "";',
        '      proxy_next_upstream error timeout;',
        '      proxy_next_upstream_tries 2;',
        '    }',
        '  }',
        '}',
      ].join('\n'),
    )
  await write(servers)
  const master: ChildProcess = spawn(NGINX, ['-p', prefix, '-c', conf, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  master.stderr!.on('data', (chunk) => (stderr += chunk))
  t.after(async () => {
    if (master.exitCode !== null) return
    master.kill('SIGTERM')
    await once(master, 'exit')
  })
  const url = `http://127.0.0.1:${port}`
  for (let attempt = 0; ; attempt++) {
    if (master.exitCode !== null) throw new Error(`nginx exited: ${stderr}`)
    try {
      await fetch(`${url}/health`)
      break
    } catch {
      if (attempt > 100) throw new Error(`nginx did not listen on ${url}: ${stderr}`)
      await sleep(50)
    }
  }
  return {
    url,
    async setUpstreams(upstreams) {
      await write(upstreams)
      const reload = await runTool(NGINX, ['-p', prefix, '-c', conf, '-s', 'reload'])
      if (reload.code !== 0) throw new Error(`nginx -s reload failed: ${reload.stderr}`)
    },
    errorLog: () => readFile(join(prefix, 'error.log'), 'utf8').catch(() => ''),
  }
}
