import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import ts from 'typescript'
import { fromRoot } from './paths.js'

/** A document and the SDK type it must have: `const document: <type> = <document>`. */
export interface TypedDocument {
  readonly name: string
  readonly type: string
  readonly document: unknown
}

const IMPORTS = "import type OpenAI from 'openai'\nimport type Anthropic from '@anthropic-ai/sdk'\n"

/**
 * Type-checks documents against the official SDKs' TypeScript types (`openai`,
 * `@anthropic-ai/sdk`) with the compiler API, strict: each becomes a `.ts` file declaring
 * `const document: <type> = <JSON>` in a directory under the project root (so the SDKs resolve
 * from node_modules), all in one program. Returns the diagnostics as text, empty when they pass.
 */
export function sdkTypeErrors(documents: readonly TypedDocument[]): string[] {
  const dir = mkdtempSync(fromRoot('dist', '.sdk-types-'))
  try {
    const files = documents.map(({ name, type, document }) => {
      const file = `${dir}/${name.replace(/[^a-zA-Z0-9_-]/g, '_')}.ts`
      writeFileSync(file, `${IMPORTS}export const document: ${type} = ${JSON.stringify(document)}\n`)
      return file
    })
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
    })
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file ? `${d.file.fileName.split('/').at(-1)}: ` : ''
      return `${where}${ts.flattenDiagnosticMessageText(d.messageText, '\n').slice(0, 500)}`
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
