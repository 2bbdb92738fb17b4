import type { Catalog, Service, Tool, Workflow } from '../catalog/types.js'
import { viewTools } from './openai.js'

/**
 * What an MCP client may read before it picks tools (issue 16): each service of a view as a
 * resource — its description, what it authenticates with, its tools — and each Arazzo workflow
 * whose steps are all in the view as a prompt naming those steps. Small and read-only.
 */

export interface McpResource {
  readonly uri: string
  readonly name: string
  readonly title: string
  readonly description: string
  readonly mimeType: 'application/json'
}

export interface McpPrompt {
  readonly name: string
  readonly title: string
  readonly description: string
}

export interface McpPromptMessages {
  readonly description: string
  readonly messages: readonly { role: 'user'; content: { type: 'text'; text: string } }[]
}

export interface McpContext {
  readonly resources: readonly McpResource[]
  /** A resource's JSON text, or undefined for a URI this view does not have. */
  read(uri: string): string | undefined
  readonly prompts: readonly McpPrompt[]
  /** A prompt's messages, or undefined for a name this view does not have. */
  prompt(name: string): McpPromptMessages | undefined
}

const SERVICE_URI = 'toolgate://services/'

export function renderMcpContext(catalog: Catalog, viewName: string): McpContext {
  const tools = viewTools(catalog, viewName)
  const byService = new Map<string, Tool[]>()
  for (const tool of tools) byService.set(tool.serviceId, [...(byService.get(tool.serviceId) ?? []), tool])
  const services = catalog.services.filter((service) => byService.has(service.id))
  const documents = new Map(
    services.map((service) => [
      `${SERVICE_URI}${encodeURIComponent(service.id)}`,
      JSON.stringify(serviceDocument(service, byService.get(service.id)!), null, 2),
    ]),
  )
  const inView = new Map(tools.map((tool) => [tool.id, tool]))
  const workflows = catalog.workflows.filter(
    (workflow) =>
      workflow.steps.length > 0 && workflow.steps.every((step) => step.toolId && inView.has(step.toolId)),
  )
  const prompts = new Map(workflows.map((workflow) => [promptName(workflow), workflow]))
  return {
    resources: services.map((service) => ({
      uri: `${SERVICE_URI}${encodeURIComponent(service.id)}`,
      name: service.id,
      title: service.title,
      description:
        service.description ?? `The ${service.title} API: ${byService.get(service.id)!.length} tools.`,
      mimeType: 'application/json',
    })),
    read: (uri) => documents.get(uri),
    prompts: [...prompts].map(([name, workflow]) => ({
      name,
      title: workflow.summary ?? workflow.workflowId,
      description: workflow.description ?? workflow.summary ?? `The ${workflow.workflowId} workflow.`,
    })),
    prompt: (name) => {
      const workflow = prompts.get(name)
      return workflow && promptMessages(workflow, inView)
    },
  }
}

function serviceDocument(service: Service, tools: readonly Tool[]) {
  return {
    id: service.id,
    title: service.title,
    ...(service.description ? { description: service.description } : {}),
    ...(service.apiVersion ? { apiVersion: service.apiVersion } : {}),
    // What the upstream asks for; the gateway injects the credentials, the caller never sends them.
    authentication: Object.values(service.securitySchemes).map((scheme) => ({
      scheme: scheme.name,
      type: scheme.type,
      ...(scheme.scheme ? { httpScheme: scheme.scheme } : {}),
      ...(scheme.in ? { in: scheme.in, name: scheme.paramName } : {}),
    })),
    tools: tools.map((tool) => ({
      name: tool.wireName,
      title: tool.title,
      readOnly: tool.safety.readOnly,
      ...(tool.safety.requiresApproval ? { requiresApproval: true } : {}),
    })),
  }
}

/** Prompt names follow tool names' rules: letters, digits, `_` and `-`. */
function promptName(workflow: Workflow): string {
  return `workflow_${workflow.workflowId.replace(/[^a-zA-Z0-9_-]/g, '_')}`.slice(0, 64)
}

function promptMessages(workflow: Workflow, tools: ReadonlyMap<string, Tool>): McpPromptMessages {
  const steps = workflow.steps.map((step, i) => {
    const tool = tools.get(step.toolId!)!
    return `${i + 1}. ${step.stepId}: call the tool ${tool.wireName} (${tool.title}).`
  })
  const about = workflow.description ?? workflow.summary
  const text = [
    `Carry out the workflow "${workflow.summary ?? workflow.workflowId}"${about && about !== workflow.summary ? `: ${about}` : '.'}`,
    'Its steps, in order:',
    ...steps,
    "Use each step's answer to fill the next step's arguments.",
  ].join('\n')
  return {
    description: about ?? workflow.workflowId,
    messages: [{ role: 'user', content: { type: 'text', text } }],
  }
}
