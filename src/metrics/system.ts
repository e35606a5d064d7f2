/**
 * Names of the OpenTelemetry GenAI conventions, shared by the metrics and the traces: the
 * `gen_ai.system` of each provider kind (the conventions' own value where there is one, else the
 * kind's name) and the `gen_ai.operation.name` of each operation.
 */
import type { Operation } from '../protocols/types.js';
import type { ProviderType } from '../providers/kinds.js';

const SYSTEMS = {
  openai: 'openai',
  anthropic: 'anthropic',
  'openai-compatible': 'openai-compatible',
  echo: 'echo',
  'azure-openai': 'azure.ai.openai',
  foundry: 'azure.ai.inference',
  vertex: 'gcp.vertex_ai',
  bedrock: 'aws.bedrock',
  gemini: 'gcp.gemini',
} as const satisfies Record<ProviderType, string>;

export const genAiSystem = (type: string | undefined): string => (type === undefined ? '' : ((SYSTEMS as Record<string, string>)[type] ?? type));

/** The conventions' "chat" for a request that makes a response; the gateway's own names for the others. */
const OPERATION_NAMES = { create: 'chat', count_tokens: 'count_tokens', compact: 'compact' } as const satisfies Record<Operation, string>;

export const genAiOperation = (operation: Operation | undefined): string => OPERATION_NAMES[operation ?? 'create'];
