/** Bedrock URLs: the model id as one percent-encoded path segment, whatever it holds. */
import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/types.js';
import type { UrlCall } from '../http.js';
import { bedrockUrl } from './url.js';

const config = { baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com' } as ProviderConfig;
const messages = (model: string, operation: UrlCall['operation'] = 'create', stream = false): UrlCall => ({ protocol: 'messages', operation, model, stream });

describe('bedrock URLs', () => {
  it.each([
    [messages('anthropic.claude-3-5-haiku-20241022-v1:0'), '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke'],
    [messages('us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'create', true), '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream'],
    [messages('global.anthropic.claude-opus-4-6-v1', 'count_tokens'), '/model/global.anthropic.claude-opus-4-6-v1/count-tokens'],
    [
      messages('arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123'),
      '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Aapplication-inference-profile%2Fabc123/invoke',
    ],
    [messages('a?b#c/../d'), '/model/a%3Fb%23c%2F..%2Fd/invoke'],
    [{ protocol: 'chat', operation: 'create', model: 'openai.gpt-oss-120b-1:0', stream: true } as UrlCall, '/openai/v1/chat/completions'],
  ])('%j → %s', (call, path) => {
    const url = bedrockUrl(config, call);
    expect(url.origin).toBe('https://bedrock-runtime.us-east-1.amazonaws.com');
    expect(url.pathname).toBe(path);
    expect(url.search).toBe('');
  });

  it.each(['', '..', '.'])('refuses the model id %j', (model) => {
    expect(() => bedrockUrl(config, messages(model))).toThrow(RangeError);
  });
});
