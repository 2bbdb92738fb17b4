// SPEC §6 / issue 6: the deployment assets are valid for the tools that consume them, checked
// offline with the real validators (kubectl kustomize, kubernetes-models, docker-compose, nginx -t,
// dockerfilelint, dockerfile-utils, npm, yamllint) plus the operations rules as plain TypeScript.
// Every validator also gets a broken copy, to prove it runs and rejects.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { validate as validateDockerfile } from 'dockerfile-utils'
import { run as dockerfilelint } from 'dockerfilelint'
import { parse, parseAllDocuments } from 'yaml'
import { loadConfig } from '../../src/config/load-config.js'
import { EnvSchema } from '../../src/config/schema.js'
import { fromRoot } from '../helpers/paths.js'
import { type ComposeAssets, checkComposePolicy } from './check-compose-policy.js'
import {
  checkDockerfilePolicy,
  contextSources,
  isDockerIgnored,
  npmInstallCommands,
  parseDockerfile,
  startMismatches,
} from './check-dockerfile-policy.js'
import { buildKnownFieldsCheck, type KnownFieldsCheck } from './check-known-fields.js'
import { checkKubernetesPolicy, type RenderedObject } from './check-kubernetes-policy.js'
import { envMap, type Fields, fieldList, fields } from './fields.js'
import { runTool } from './run-tool.js'

/** What the gateway reads. */
const KNOWN_ENV: ReadonlySet<string> = new Set(Object.keys(EnvSchema.properties))

const scratch = () => mkdtemp(join(tmpdir(), 'toolgate-deploy-'))
const readRoot = (path: string) => readFile(fromRoot(path), 'utf8')
const clone = <T>(value: T): T => structuredClone(value)
/** A broken copy's edit; an edit that changes nothing fails, or the negative test would prove nothing. */
const edit = (text: string, from: string | RegExp, to: string) => {
  const edited = text.replace(from, to)
  assert.notEqual(edited, text, `the broken copy needs ${from} in the original`)
  return edited
}
const describeObject = ({ file, object }: RenderedObject) =>
  `${file}: ${object.kind} ${fields(object.metadata).name}`

// ------------------------------------------------------------------------------------------------
// Kubernetes

/** `kubectl kustomize <dir>` (kustomize built into kubectl; offline: it only renders). */
async function renderKustomize(dir: string): Promise<Fields[]> {
  const result = await runTool('kubectl', ['kustomize', dir])
  assert.equal(result.code, 0, `kubectl kustomize ${dir} failed:\n${result.output}`)
  return parseAllDocuments(result.stdout).map((doc) => fields(doc.toJS()))
}

/** kind/name → the file that declares it, from the files kustomization.yaml lists. */
async function sourcesOf(
  dir: string,
  label: string,
): Promise<{ files: Map<string, string>; generated: string[] }> {
  const kustomization = fields(parse(await readFile(join(dir, 'kustomization.yaml'), 'utf8')))
  const files = new Map<string, string>()
  for (const resource of (kustomization.resources as string[] | undefined) ?? []) {
    const docs = parseAllDocuments(await readFile(join(dir, resource), 'utf8'))
    for (const doc of docs) {
      const object = fields(doc.toJS())
      files.set(`${object.kind}/${fields(object.metadata).name}`, `${label}/${resource}`)
    }
  }
  const generated = fieldList(kustomization.configMapGenerator).map((g) => String(g.name))
  return { files, generated }
}

/** A generated ConfigMap's name carries a content hash: toolgate-config-295t4k8d89 → toolgate-config. */
const sourceKey = (object: Fields, generated: readonly string[]) => {
  const name = String(fields(object.metadata).name)
  const base =
    object.kind === 'ConfigMap' ? generated.find((g) => name === g || name.startsWith(`${g}-`)) : undefined
  return `${object.kind}/${base ?? name}`
}

let rendering: Promise<RenderedObject[]> | undefined
/** The render of k8s/, each object with its file; once per run. */
const rendered = () => {
  rendering ??= (async () => {
    const objects = await renderKustomize(fromRoot('k8s'))
    const { files, generated } = await sourcesOf(fromRoot('k8s'), 'k8s')
    return objects.map((object) => ({
      file: files.get(sourceKey(object, generated)) ?? 'k8s/kustomization.yaml (configMapGenerator)',
      object,
    }))
  })()
  return rendering
}

/** kubernetes-models' own validation (schema types, enums, formats) of each object. */
async function validateWithModels(objects: readonly RenderedObject[]): Promise<string[]> {
  const problems: string[] = []
  for (const rendered of objects) {
    const { apiVersion, kind } = rendered.object
    let Model: new (data: unknown) => { validate(): void }
    try {
      const module = (await import(`kubernetes-models/${apiVersion}/${kind}`)) as Record<string, unknown>
      Model = module[String(kind)] as typeof Model
    } catch {
      problems.push(`${describeObject(rendered)}: kubernetes-models has no ${apiVersion} ${kind}`)
      continue
    }
    try {
      new Model(rendered.object).validate()
    } catch (err) {
      problems.push(`${describeObject(rendered)}: ${(err as Error).message}`)
    }
  }
  return problems
}

let knownFields: KnownFieldsCheck | undefined
function checkUnknownFields(objects: readonly RenderedObject[]): string[] {
  knownFields ??= buildKnownFieldsCheck(
    [...new Set(objects.map(({ object }) => `${object.apiVersion}/${object.kind}`))].map((key) => ({
      apiVersion: key.slice(0, key.lastIndexOf('/')),
      kind: key.slice(key.lastIndexOf('/') + 1),
    })),
  )
  const check = knownFields
  return objects.flatMap((rendered) =>
    check(rendered.object).map((path) => `${describeObject(rendered)}: unknown field ${path}`),
  )
}

const gatewayOf = (objects: RenderedObject[]) => {
  const deployment = objects.find(
    ({ object }) => object.kind === 'Deployment' && fields(object.metadata).name === 'toolgate',
  )
  assert.ok(deployment, 'k8s: no Deployment toolgate in the render')
  const pod = fields(fields(fields(deployment.object.spec).template).spec)
  const container = fieldList(pod.containers).find((c) => c.name === 'toolgate')
  assert.ok(container, 'k8s/deployment.yaml: no container toolgate')
  return { deployment, pod, container }
}

describe('Kubernetes manifests (k8s/)', () => {
  test('kubectl kustomize renders exactly the listed files and the generated ConfigMap', async () => {
    const objects = await rendered()
    const { files, generated } = await sourcesOf(fromRoot('k8s'), 'k8s')
    const renderedKeys = objects.map(({ object }) => sourceKey(object, generated)).sort()
    const declared = [...files.keys(), ...generated.map((name) => `ConfigMap/${name}`)].sort()
    assert.deepEqual(renderedKeys, declared, 'the render and the files kustomization.yaml lists differ')
    for (const { object } of objects)
      if (object.kind !== 'Namespace')
        assert.equal(fields(object.metadata).namespace, 'toolgate', `${object.kind} is outside the namespace`)
  })

  test('every object passes kubernetes-models validation', async () => {
    assert.deepEqual(await validateWithModels(await rendered()), [])
  })

  test('no object has a field kubernetes-models does not declare (its validation lets them through)', async () => {
    assert.deepEqual(checkUnknownFields(await rendered()), [])
  })

  test('the gateway follows the operations rules: probes, drain, PDB, HPA, rollout, resources, specs volume', async () => {
    assert.deepEqual(checkKubernetesPolicy(await rendered(), { knownEnv: KNOWN_ENV }), [])
  })

  test("the gateway's environment and its mounted toolgate.yaml pass the gateway's own config loader", async () => {
    const objects = await rendered()
    const { pod, container } = gatewayOf(objects)
    const env = Object.fromEntries(envMap(container.env))
    // /config/toolgate.yaml → the config volume → the generated ConfigMap's data.
    const mounts = fieldList(container.volumeMounts)
    const volumes = fieldList(pod.volumes)
    const readText = async (path: string) => {
      const mount = mounts.find((m) => path.startsWith(`${m.mountPath}/`))
      const configMap = fields(volumes.find((v) => v.name === mount?.name)?.configMap).name
      const object = objects.find(
        ({ object: o }) => o.kind === 'ConfigMap' && fields(o.metadata).name === configMap,
      )
      const data = fields(object?.object.data)[path.slice(String(mount?.mountPath).length + 1)]
      if (typeof data !== 'string') throw new Error(`${path} is in no ConfigMap of the render`)
      return data
    }
    const config = await loadConfig(env, readText)
    assert.equal(config.host, '0.0.0.0')
    assert.equal(config.production, true)
  })

  test('the preStop exec sleep has a sleep binary: the runtime image is Debian slim, not distroless', async () => {
    const { container } = gatewayOf(await rendered())
    const preStop = fields(fields(container.lifecycle).preStop)
    if (preStop.exec === undefined) return
    const runtime = parseDockerfile(await readRoot('Dockerfile')).at(-1)?.image ?? ''
    assert.match(
      runtime,
      /^node:\d+-(bookworm|bullseye)(-slim)?$/,
      `Dockerfile: runtime image ${runtime} may lack /bin/sleep`,
    )
  })

  describe('each check rejects a broken copy', () => {
    test('kubectl kustomize: a kustomization listing a missing file', async () => {
      const dir = await scratch()
      await cp(fromRoot('k8s'), dir, { recursive: true })
      const kustomization = await readFile(join(dir, 'kustomization.yaml'), 'utf8')
      await writeFile(
        join(dir, 'kustomization.yaml'),
        edit(kustomization, '- pdb.yaml', '- pdb-missing.yaml'),
      )
      const result = await runTool('kubectl', ['kustomize', dir])
      assert.notEqual(result.code, 0, result.output)
      assert.match(result.stderr, /pdb-missing\.yaml/)
    })

    test('kubernetes-models: replicas: "two" and a string port', async () => {
      const { deployment, container } = gatewayOf(clone(await rendered()))
      fields(deployment.object.spec).replicas = 'two'
      fieldList(container.ports)[0]!.containerPort = 'http'
      const problems = await validateWithModels([deployment])
      assert.equal(problems.length, 1)
      assert.match(
        problems[0]!,
        /^k8s\/deployment\.yaml: Deployment toolgate: .*spec\/replicas must be integer/,
      )
      assert.match(problems[0]!, /containerPort must be integer/)
    })

    test('unknown fields: a misspelt probe, a field on the Deployment spec, not labels or ConfigMap data (maps)', async () => {
      const objects = clone(await rendered())
      const { deployment, container } = gatewayOf(objects)
      container.readinesProbe = container.readinessProbe
      fields(deployment.object.spec).bogusField = true
      fields(fields(deployment.object.metadata).labels)['any.label/key'] = 'fine'
      const configMap = objects.find(({ object }) => object.kind === 'ConfigMap')!
      fields(configMap.object.data)['any-file.yaml'] = 'fine'
      const problems = checkUnknownFields(objects)
      assert.deepEqual(problems, [
        'k8s/deployment.yaml: Deployment toolgate: unknown field spec.template.spec.containers[0].readinesProbe',
        'k8s/deployment.yaml: Deployment toolgate: unknown field spec.bogusField',
      ])
    })

    const policyCases: [string, (objects: RenderedObject[]) => void, RegExp][] = [
      [
        'specs mounted with subPath',
        (o) => {
          fieldList(gatewayOf(o).container.volumeMounts)[0]!.subPath = 'tickets.yaml'
        },
        /deployment\.yaml: Deployment toolgate: volume specs is mounted with subPath/,
      ],
      [
        'no preStop',
        (o) => {
          delete gatewayOf(o).container.lifecycle
        },
        /lifecycle\.preStop must sleep/,
      ],
      [
        'a grace period shorter than preStop + drain + margin',
        (o) => {
          gatewayOf(o).pod.terminationGracePeriodSeconds = 30
        },
        /terminationGracePeriodSeconds 30 < preStop 5 \+ DRAIN_DELAY 2 \+ SHUTDOWN_TIMEOUT 30 \+ 5 = 42 s/,
      ],
      [
        'liveness on the Redis-aware /ready',
        (o) => {
          fields(fields(gatewayOf(o).container.livenessProbe).httpGet).path = '/ready'
        },
        /livenessProbe must GET \/health/,
      ],
      [
        'a :latest image',
        (o) => {
          gatewayOf(o).container.image = 'toolgate:latest'
        },
        /container toolgate image toolgate:latest is not pinned/,
      ],
      [
        'maxUnavailable 25 %',
        (o) => {
          fields(fields(fields(gatewayOf(o).deployment.object.spec).strategy).rollingUpdate).maxUnavailable =
            '25%'
        },
        /maxUnavailable: 0/,
      ],
      [
        'a PDB with minAvailable and the default eviction policy',
        (o) => {
          const pdb = o.find(({ object }) => object.kind === 'PodDisruptionBudget')!
          pdb.object.spec = { ...fields(pdb.object.spec), minAvailable: 1, maxUnavailable: undefined }
          delete fields(pdb.object.spec).unhealthyPodEvictionPolicy
        },
        /pdb\.yaml: PodDisruptionBudget toolgate: must set maxUnavailable: 1[\s\S]*AlwaysAllow/,
      ],
      [
        'replicas set although the HPA owns the count',
        (o) => {
          fields(gatewayOf(o).deployment.object.spec).replicas = 2
        },
        /Deployment toolgate: sets replicas although an HPA scales it/,
      ],
      [
        'an HPA without behavior',
        (o) => {
          delete fields(o.find(({ object }) => object.kind === 'HorizontalPodAutoscaler')!.object.spec)
            .behavior
        },
        /hpa\.yaml: HorizontalPodAutoscaler toolgate: behavior must set scaleUp and scaleDown/,
      ],
      [
        'a misspelt environment variable and no HOST',
        (o) => {
          const env = fieldList(gatewayOf(o).container.env)
          env.find((e) => e.name === 'DRAIN_DELAY')!.name = 'DRAIN_DELAY_MS'
          env.find((e) => e.name === 'HOST')!.name = 'HOSTNAME'
        },
        /env HOST is unset[\s\S]*env DRAIN_DELAY_MS is not a variable the gateway reads/,
      ],
    ]
    for (const [name, breakIt, expected] of policyCases)
      test(`policy: ${name}`, async () => {
        const objects = clone(await rendered())
        breakIt(objects)
        assert.match(checkKubernetesPolicy(objects, { knownEnv: KNOWN_ENV }).join('\n'), expected)
      })
  })
})

// ------------------------------------------------------------------------------------------------
// docker-compose.yml and deploy/

/** `docker-compose config`: validates (unknown keys, types) and prints the normalized file. */
async function composeConfig(file: string, quiet: boolean) {
  return runTool('docker-compose', ['-f', file, 'config', ...(quiet ? ['-q'] : [])])
}

/**
 * `nginx -t` on a test copy of deploy/nginx.conf. The file is a conf.d snippet (a server and an
 * upstream block), so it is wrapped in a minimal main config (events {}, http { include }) with
 * every path in a scratch dir; and `server gateway:3000` becomes 127.0.0.1: nginx resolves
 * upstream names while loading, and `gateway` exists only on the Compose network.
 */
async function nginxTest(conf: string) {
  const dir = await scratch()
  await writeFile(join(dir, 'default.conf'), conf.replace(/\bserver\s+gateway:/g, 'server 127.0.0.1:'))
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((name) => `  ${name}_temp_path ${join(dir, name)};`)
    .join('\n')
  await writeFile(
    join(dir, 'nginx.conf'),
    `pid ${join(dir, 'nginx.pid')};\nerror_log stderr;\nevents {}\nhttp {\n  access_log off;\n${temp}\n  include ${join(dir, 'default.conf')};\n}\n`,
  )
  return runTool('nginx', ['-t', '-e', 'stderr', '-p', dir, '-c', join(dir, 'nginx.conf')])
}

let composeAssets: Promise<ComposeAssets> | undefined
const loadComposeAssets = () => {
  composeAssets ??= (async () => {
    const result = await composeConfig(fromRoot('docker-compose.yml'), false)
    assert.equal(result.code, 0, result.output)
    return {
      compose: fields(parse(result.stdout)),
      nginxConf: await readRoot('deploy/nginx.conf'),
      gatewayConfig: parse(await readRoot('deploy/toolgate.compose.yaml')),
      knownEnv: KNOWN_ENV,
    }
  })()
  return composeAssets
}

describe('docker-compose.yml and deploy/', () => {
  test('docker-compose config -q accepts docker-compose.yml', async () => {
    const result = await composeConfig(fromRoot('docker-compose.yml'), true)
    assert.equal(result.code, 0, result.output)
  })

  test('nginx -t accepts deploy/nginx.conf', async () => {
    const result = await nginxTest(await readRoot('deploy/nginx.conf'))
    assert.equal(result.code, 0, result.output)
  })

  test('2+ gateway replicas behind nginx, Redis, the example upstream; drain and keep-alive consistent', async () => {
    assert.deepEqual(checkComposePolicy(await loadComposeAssets()), [])
  })

  test("the gateway's environment and deploy/toolgate.compose.yaml pass the gateway's own config loader", async () => {
    const { compose } = await loadComposeAssets()
    const gateway = fields(fields(compose.services).gateway)
    const env = Object.fromEntries(
      Object.entries(fields(gateway.environment)).map(([k, v]) => [k, String(v)]),
    )
    const mounts = (gateway.volumes as string[]).map((v) => v.split(':'))
    const readText = async (path: string) => {
      const mount = mounts.find(([, target]) => target === path)
      if (!mount) throw new Error(`${path} is not mounted into the gateway`)
      return readFile(mount[0]!, 'utf8')
    }
    const config = await loadConfig(env, readText)
    assert.deepEqual(Object.keys(config.file.services ?? {}).sort(), ['billing', 'tickets'])
  })

  describe('each check rejects a broken copy', () => {
    test('docker-compose: an unknown key and a wrongly typed value', async () => {
      const dir = await scratch()
      const text = await readRoot('docker-compose.yml')
      await writeFile(
        join(dir, 'unknown.yml'),
        edit(text, '    stop_grace_period:', '    bogus_key: 1\n    stop_grace_period:'),
      )
      await writeFile(join(dir, 'typed.yml'), edit(text, 'replicas: 2', 'replicas: two'))
      const unknown = await composeConfig(join(dir, 'unknown.yml'), true)
      assert.notEqual(unknown.code, 0, unknown.output)
      assert.match(unknown.stderr, /bogus_key/)
      const typed = await composeConfig(join(dir, 'typed.yml'), true)
      assert.notEqual(typed.code, 0, typed.output)
      assert.match(typed.stderr, /replicas/)
    })

    test('nginx -t: an unknown directive and a bad proxy_next_upstream value', async () => {
      const conf = await readRoot('deploy/nginx.conf')
      const directive = await nginxTest(edit(conf, 'proxy_http_version 1.1;', 'proxy_http_versoin 1.1;'))
      assert.notEqual(directive.code, 0, directive.output)
      assert.match(directive.stderr, /unknown directive "proxy_http_versoin"/)
      const value = await nginxTest(edit(conf, 'error timeout;', 'error timeout sometimes;'))
      assert.notEqual(value.code, 0, value.output)
      assert.match(value.stderr, /invalid value "sometimes"/)
    })

    const composeCases: [string, (assets: { compose: Fields; nginxConf: string }) => void, RegExp][] = [
      [
        'one replica',
        ({ compose }) => {
          gatewayService(compose).deploy = { replicas: 1 }
        },
        /needs at least 2 replicas/,
      ],
      [
        'no DRAIN_DELAY and Docker’s 10 s stop grace',
        ({ compose }) => {
          delete fields(gatewayService(compose).environment).DRAIN_DELAY
          delete gatewayService(compose).stop_grace_period
        },
        /DRAIN_DELAY must be set[\s\S]*stop_grace_period 10 s/,
      ],
      [
        'REDIS_URL on localhost',
        ({ compose }) => {
          fields(gatewayService(compose).environment).REDIS_URL = 'redis://127.0.0.1:6379'
        },
        /REDIS_URL \(redis:\/\/127\.0\.0\.1:6379\) must point at the redis service/,
      ],
      [
        'no load balancer',
        ({ compose }) => {
          delete fields(compose.services).lb
        },
        /no nginx load balancer service/,
      ],
      [
        'nginx idle timeout above the gateway keep-alive, and POST replays',
        (a) => {
          const idle = edit(a.nginxConf, 'keepalive_timeout 60s;', 'keepalive_timeout 75s;')
          a.nginxConf = edit(idle, 'error timeout;', 'error timeout non_idempotent;')
        },
        /keepalive_timeout below the gateway's 72 s \(found 75s\)[\s\S]*non_idempotent would replay/,
      ],
    ]
    for (const [name, breakIt, expected] of composeCases)
      test(`policy: ${name}`, async () => {
        const assets = clone(await loadComposeAssets())
        const broken = { compose: assets.compose, nginxConf: assets.nginxConf }
        breakIt(broken)
        const problems = checkComposePolicy({ ...assets, ...broken, knownEnv: KNOWN_ENV })
        assert.match(problems.join('\n'), expected)
      })
  })
})

const gatewayService = (compose: Fields) => fields(fields(compose.services).gateway)

// ------------------------------------------------------------------------------------------------
// Dockerfile and .dockerignore

/**
 * Findings accepted on purpose, each with its reason; any other finding fails. A waiver matches a
 * rule and the instruction on the reported line.
 */
const DOCKERFILE_WAIVERS = [
  {
    tool: 'dockerfilelint',
    rule: 'invalid_format',
    instruction: /^HEALTHCHECK .*--start-period=/,
    reason:
      'dockerfilelint 1.8.0 bug: it reads option names with /--\\w+/, which cuts --start-period to --start, then ' +
      'rejects that although its own allow-list has --start-period (lib/checks.js is_valid_healthcheck). ' +
      'dockerfile-utils, which knows the flag, checks the same line.',
  },
]

function isWaived(tool: string, rule: string, line: number, text: string): boolean {
  const instruction = text.split(/\r?\n/)[line - 1]?.trim() ?? ''
  return DOCKERFILE_WAIVERS.some((w) => w.tool === tool && w.rule === rule && w.instruction.test(instruction))
}

/** dockerfilelint with every rule on (an empty config dir: no .dockerfilelintrc). */
async function lintWithDockerfilelint(text: string, file = 'Dockerfile'): Promise<string[]> {
  const noConfig = await scratch()
  return dockerfilelint(noConfig, text)
    .filter((item) => !isWaived('dockerfilelint', item.rule, item.line, text))
    .map((item) => `${file}:${item.line}: dockerfilelint ${item.rule}: ${item.title}`)
}

/** dockerfile-utils (the `dockerfile-utils lint` library): every diagnostic, warnings included. */
function lintWithDockerfileUtils(text: string, file = 'Dockerfile'): string[] {
  return validateDockerfile(text)
    .filter((d) => !isWaived('dockerfile-utils', String(d.code), d.range.start.line + 1, text))
    .map((d) => `${file}:${d.range.start.line + 1}: dockerfile-utils ${d.code}: ${d.message}`)
}

/** The Dockerfile's npm install, as a dry run against this package.json and lock (offline). */
async function dryRunInstall(args: readonly string[]) {
  const dir = await scratch()
  await cp(fromRoot('package.json'), join(dir, 'package.json'))
  await cp(fromRoot('package-lock.json'), join(dir, 'package-lock.json'))
  return runTool('npm', [...args, '--dry-run', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: dir,
    timeoutMs: 60_000,
  })
}

describe('Dockerfile', () => {
  test('dockerfilelint finds nothing but the documented waivers', async () => {
    assert.deepEqual(await lintWithDockerfilelint(await readRoot('Dockerfile')), [])
    for (const waiver of DOCKERFILE_WAIVERS) assert.ok(waiver.reason.length > 40, 'every waiver says why')
  })

  test('dockerfile-utils lint finds nothing', async () => {
    assert.deepEqual(lintWithDockerfileUtils(await readRoot('Dockerfile')), [])
  })

  test('multi-stage, non-root, HEALTHCHECK, compiled JS with node, no dev dependencies in the image', async () => {
    assert.deepEqual(checkDockerfilePolicy(await readRoot('Dockerfile')), [])
  })

  test("the Dockerfile's npm install succeeds with this package.json and lock file (dry run, offline)", async () => {
    const commands = npmInstallCommands(await readRoot('Dockerfile'))
    assert.ok(commands.length > 0, 'Dockerfile: no npm install')
    for (const args of commands) {
      const result = await dryRunInstall(args)
      assert.equal(
        result.code,
        0,
        `Dockerfile: npm ${args.join(' ')} fails with this lock file:\n${result.output}`,
      )
    }
  })

  test('the commands the images run are files the build produces', async () => {
    const cmd = parseDockerfile(await readRoot('Dockerfile'))
      .at(-1)
      ?.instructions.findLast((i) => i.keyword === 'CMD')
    const entry = (JSON.parse(cmd?.args ?? '[]') as string[]).find((arg) => arg.endsWith('.js'))
    assert.ok(
      entry && existsSync(fromRoot(entry)),
      `Dockerfile: CMD runs ${entry}, which the build does not produce`,
    )
    const { compose } = await loadComposeAssets()
    const upstream = fields(fields(compose.services).upstream).command as string[]
    const script = upstream.find((arg) => arg.endsWith('.js'))
    assert.ok(
      script && existsSync(fromRoot(script)),
      `docker-compose.yml: upstream runs ${script}, which is not built`,
    )
  })

  test('npm start runs the gateway as the image does: the same node flags and allocator setting', async () => {
    const dockerfile = await readRoot('Dockerfile')
    const start = (JSON.parse(await readRoot('package.json')) as { scripts: { start: string } }).scripts.start
    assert.deepEqual(startMismatches(dockerfile, start), [])
    // The check sees a difference on either side.
    assert.match(
      startMismatches(dockerfile, edit(start, /--max-semi-space-size=\d+ /, '')).join('\n'),
      /node flags: the image's CMD has "--max-semi-space-size=\d+", npm start ""/,
    )
    assert.match(
      startMismatches(
        edit(dockerfile, 'MALLOC_MMAP_THRESHOLD_=131072', 'MALLOC_MMAP_THRESHOLD_=65536'),
        start,
      ).join('\n'),
      /MALLOC_MMAP_THRESHOLD_: the image sets 65536, npm start 131072/,
    )
  })

  test('.dockerignore keeps node_modules, dist, .git and the tests out, and every COPY source in', async () => {
    const dockerignore = await readRoot('.dockerignore')
    for (const path of [
      'node_modules',
      'dist',
      '.git',
      'test',
      'test/fixtures/real-world',
      'coverage',
      'k8s',
    ])
      assert.ok(isDockerIgnored(dockerignore, path), `.dockerignore: ${path} is not excluded`)
    for (const source of contextSources(await readRoot('Dockerfile')))
      assert.ok(
        !isDockerIgnored(dockerignore, source),
        `.dockerignore excludes ${source}, which the Dockerfile copies`,
      )
  })

  describe('each check rejects a broken copy', () => {
    const broken =
      'FROM debian:bookworm-slim\nWORKDIR app\nRUN apt-get update && apt-get install curl\nCMD ["sh"]\n'

    test('dockerfilelint: apt-get install without -y', async () => {
      const problems = await lintWithDockerfilelint(broken, 'broken.Dockerfile')
      assert.ok(
        problems.includes(
          'broken.Dockerfile:3: dockerfilelint apt-get_missing_param: Missing parameter for `apt-get`',
        ),
        problems.join('\n'),
      )
    })

    test('dockerfile-utils: a relative WORKDIR', () => {
      assert.deepEqual(lintWithDockerfileUtils(broken, 'broken.Dockerfile'), [
        'broken.Dockerfile:2: dockerfile-utils 50: WORKDIR paths should be absolute',
      ])
    })

    test('the waiver is narrow: another bad HEALTHCHECK option is still reported', async () => {
      const text =
        'FROM node:20-bookworm-slim\nHEALTHCHECK --bogus=1s CMD ["node", "x.js"]\nCMD ["node", "x.js"]\n'
      const problems = await lintWithDockerfilelint(text, 'broken.Dockerfile')
      assert.ok(
        problems.some((p) => p.startsWith('broken.Dockerfile:2: dockerfilelint invalid_format')),
        problems.join('\n'),
      )
    })

    const dockerfileCases: [string, (text: string) => string, RegExp][] = [
      [
        'one stage',
        (t) => edit(t.slice(t.indexOf('# Runtime stage')), /COPY --from=build \S+ \S+\n/g, ''),
        /not multi-stage/,
      ],
      ['root', (t) => edit(t, 'USER node\n', ''), /runs as root/],
      ['no HEALTHCHECK', (t) => edit(t, /HEALTHCHECK[\s\S]*?\n {2}CMD[^\n]*\n/, ''), /no HEALTHCHECK/],
      [
        'a TypeScript loader',
        (t) => edit(t, /^CMD \["node".*/m, 'CMD ["npx", "tsx", "src/cli/index.ts", "serve"]'),
        /CMD must run compiled JavaScript[\s\S]*TypeScript loader/,
      ],
      [
        'dev dependencies kept',
        (t) => edit(t, ' && npm prune --omit=dev --no-audit --no-fund', ''),
        /node_modules comes from stage build, which keeps dev dependencies/,
      ],
      [
        'an unpinned base image',
        (t) => edit(t, 'FROM node:24-bookworm-slim\n', 'FROM node\n'),
        /FROM node is not pinned/,
      ],
    ]
    for (const [name, breakIt, expected] of dockerfileCases)
      test(`policy: ${name}`, async () => {
        const text = breakIt(await readRoot('Dockerfile'))
        assert.match(checkDockerfilePolicy(text).join('\n'), expected)
      })

    test('.dockerignore: a pattern that drops a COPY source is seen', () => {
      assert.equal(isDockerIgnored('src\n', 'src'), true)
      assert.equal(isDockerIgnored('*.json\n', 'package.json'), true)
      assert.equal(isDockerIgnored('*.json\n!package.json\n', 'package.json'), false)
      assert.equal(isDockerIgnored('test\n', 'tests'), false)
    })
  })
})

// ------------------------------------------------------------------------------------------------
// yamllint

const YAML_ASSETS = ['k8s', 'docker-compose.yml', 'deploy']

async function yamllint(paths: readonly string[], cwd = fromRoot('.')) {
  return runTool('yamllint', ['--strict', '-f', 'parsable', '-c', fromRoot('.yamllint'), ...paths], { cwd })
}

describe('yamllint', () => {
  test('k8s/, docker-compose.yml and deploy/ are clean under .yamllint (warnings fail too)', async () => {
    const result = await yamllint(YAML_ASSETS)
    assert.equal(result.code, 0, result.output)
  })

  test('rejects a broken copy: a duplicated key', async () => {
    const dir = await scratch()
    const text = await readRoot('k8s/pdb.yaml')
    await writeFile(
      join(dir, 'pdb.yaml'),
      edit(text, '  maxUnavailable: 1\n', '  maxUnavailable: 1\n  maxUnavailable: 2\n'),
    )
    const result = await yamllint(['pdb.yaml'], dir)
    assert.notEqual(result.code, 0, result.output)
    assert.match(result.stdout, /pdb\.yaml:\d+:\d+: \[error\] duplication of key "maxUnavailable"/)
  })
})
