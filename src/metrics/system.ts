/**
 * The `gen_ai.system` of the OpenTelemetry GenAI conventions for each provider kind: the
 * conventions' own value where there is one, else the kind's name.
 */
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
