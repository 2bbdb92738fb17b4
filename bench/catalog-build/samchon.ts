// Row 4, the baseline: @samchon/openapi v6 reading the same file (argv[2]) and composing LLM
// function-calling schemas (HttpLlm.application, default config) from OpenApi.convert(document).
import { readFile } from 'node:fs/promises'
import { HttpLlm, OpenApi } from '@samchon/openapi'
import { report } from './result.js'

const started = performance.now()
const document = JSON.parse(await readFile(process.argv[2] ?? '', 'utf8')) as Parameters<
  typeof OpenApi.convert
>[0]
const application = HttpLlm.application({ document: OpenApi.convert(document) })
report(started, application.functions.length, application.errors.length)
