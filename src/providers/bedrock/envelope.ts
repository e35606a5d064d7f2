/**
 * The Messages body as Bedrock's InvokeModel takes it: no `model` (it is in the path) and no
 * `stream` (the streaming call has its own path), Bedrock's `anthropic_version` in the body, the
 * betas of the `anthropic-beta` header in the body's `anthropic_beta` (those Bedrock knows), and
 * without the fields Bedrock's body schema refuses with "Extra inputs are not permitted". What is
 * left out is named in `dropped`. CountTokens takes that same body, base64-encoded, in its own.
 */
import type { Enveloped, EnvelopeCall } from '../kind.js';
import { isObject } from '../../protocols/shallow.js';
import { bedrockBetas } from './betas.js';

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/** Top-level fields of Anthropic's Messages API that Bedrock's body does not have. */
const REFUSED_FIELDS = ['metadata', 'service_tier', 'container', 'inference_geo', 'mcp_servers', 'speed'] as const;

/** Top-level fields Bedrock takes only when their beta is in `anthropic_beta`. */
const GATED_FIELDS: Readonly<Record<string, string>> = { context_management: 'context-management-2025-06-27' };

/** Fields of a tool definition Bedrock takes only with their beta. */
const GATED_TOOL_FIELDS: Readonly<Record<string, string>> = {
  input_examples: 'tool-examples-2025-10-29',
  defer_loading: 'tool-search-tool-2025-10-19',
};

// Anthropic's API asks for fine-grained tool streaming per tool; Bedrock by its beta, for every tool.
const EAGER_STREAMING_BETA = 'fine-grained-tool-streaming-2025-05-14';

export function bedrockEnvelope(call: EnvelopeCall): Enveloped | undefined {
  // Bedrock's Chat Completions endpoint takes OpenAI's body as it is.
  if (call.protocol !== 'messages') return undefined;
  const { 'anthropic-beta': betaHeader, 'anthropic-version': _version, ...headers } = call.headers;
  const { accepted: betas, refused } = bedrockBetas(betaHeader);
  const dropped = refused.map((beta) => `anthropic-beta ${beta}`);
  const { model: _model, stream: _stream, ...rest } = call.json;
  const body: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...rest };
  for (const field of REFUSED_FIELDS) {
    if (field in body) {
      delete body[field];
      dropped.push(field);
    }
  }
  for (const [field, beta] of Object.entries(GATED_FIELDS)) {
    if (field in body && !betas.includes(beta)) {
      delete body[field];
      dropped.push(field);
    }
  }
  if (Array.isArray(body.tools)) body.tools = bedrockTools(body.tools, betas, dropped);
  if (betas.length > 0) body.anthropic_beta = betas;
  if (call.operation === 'count_tokens') return { json: countTokensBody(body), headers, dropped };
  return { json: body, headers, dropped };
}

/** The tools without the fields Bedrock refuses; `betas` gains the one eager streaming needs. */
function bedrockTools(tools: readonly unknown[], betas: string[], dropped: string[]): unknown[] {
  return tools.map((tool) => {
    if (!isObject(tool)) return tool;
    let out: Record<string, unknown> | undefined;
    const without = (field: string) => {
      out ??= { ...tool };
      delete out[field];
    };
    if ('eager_input_streaming' in tool) {
      without('eager_input_streaming');
      if (tool.eager_input_streaming === true && !betas.includes(EAGER_STREAMING_BETA)) betas.push(EAGER_STREAMING_BETA);
    }
    for (const [field, beta] of Object.entries(GATED_TOOL_FIELDS)) {
      if (field in tool && !betas.includes(beta)) {
        without(field);
        if (!dropped.includes(`tool ${field}`)) dropped.push(`tool ${field}`);
      }
    }
    return out ?? tool;
  });
}

/**
 * CountTokens' body: the InvokeModel body as a blob, which AWS's JSON protocol carries as base64.
 * Anthropic's counting request has no `max_tokens`, which InvokeModel's body requires; any value
 * counts the same.
 */
function countTokensBody(invokeBody: Record<string, unknown>): Record<string, unknown> {
  const body = 'max_tokens' in invokeBody ? invokeBody : { ...invokeBody, max_tokens: 1 };
  return { input: { invokeModel: { body: Buffer.from(JSON.stringify(body)).toString('base64') } } };
}
