/**
 * Where a bedrock call goes. Messages: InvokeModel (`/model/{modelId}/invoke`), its streaming
 * twin, and CountTokens, the model id in the path as one percent-encoded segment (an ARN holds
 * `:` and `/`). Chat: Bedrock's OpenAI-compatible endpoint, the model in the body.
 */
import type { ProviderConfig } from '../../config/types.js';
import { assertNever } from '../../assert-never.js';
import type { UrlCall } from '../http.js';
import { urlUnder } from '../url.js';

export function bedrockUrl(config: ProviderConfig, call: UrlCall): URL {
  switch (call.protocol) {
    case 'messages':
      return urlUnder(config.baseUrl, 'model', modelId(call), messagesAction(call));
    case 'chat':
      return urlUnder(config.baseUrl, 'openai', 'v1', 'chat', 'completions');
    case 'responses':
    case 'gemini':
      // Routing sends a provider only the protocols it speaks; bedrock speaks neither.
      throw new RangeError(`Bedrock has no ${call.protocol} API`);
    default:
      return assertNever(call.protocol);
  }
}

function modelId(call: UrlCall): string {
  if (call.model === undefined || call.model === '') throw new RangeError('a Bedrock call needs a model id');
  return call.model;
}

function messagesAction(call: UrlCall): string {
  switch (call.operation) {
    case 'create':
      return call.stream ? 'invoke-with-response-stream' : 'invoke';
    case 'count_tokens':
      return 'count-tokens';
    case 'compact':
      throw new RangeError('Bedrock has no compact call');
    default:
      return assertNever(call.operation);
  }
}
