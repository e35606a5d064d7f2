/**
 * The Vercel AI SDK's provider packages, each pointed at a base URL the way the README tells a user to:
 * the caller protocol each one speaks, and the language model it builds for a model name.
 * No Gemini caller yet: the AI SDK's Gemini package, `@ai-sdk/google`, is not among the devDependencies.
 * Its entry would be `{ name: '@ai-sdk/google', caller: 'gemini', model: (baseUrl, apiKey, m) =>
 * createGoogleGenerativeAI({ baseURL: `${baseUrl}/v1beta`, apiKey })(m) }` (it sends `x-goog-api-key`
 * and calls `models/{m}:generateContent` and `:streamGenerateContent?alt=sse` under that base URL).
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { Protocol } from '#src/protocols/types.js';

export interface AiSdkProvider {
  readonly name: string;
  /** The protocol the package sends. */
  readonly caller: Protocol;
  /** `baseUrl` is the gateway's root, without `/v1`. */
  model(baseUrl: string, apiKey: string, modelName: string): LanguageModel;
}

export const aiSdkProviders: readonly AiSdkProvider[] = [
  {
    name: '@ai-sdk/openai responses',
    caller: 'responses',
    model: (baseUrl, apiKey, m) => createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey }).responses(m),
  },
  {
    name: '@ai-sdk/openai chat',
    caller: 'chat',
    model: (baseUrl, apiKey, m) => createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey }).chat(m),
  },
  {
    name: '@ai-sdk/anthropic',
    caller: 'messages',
    model: (baseUrl, apiKey, m) => createAnthropic({ baseURL: `${baseUrl}/v1`, apiKey }).messages(m),
  },
  {
    name: '@ai-sdk/openai-compatible',
    caller: 'chat',
    // Without `includeUsage` the package does not ask a stream for its usage.
    model: (baseUrl, apiKey, m) => createOpenAICompatible({ name: 'gateway', baseURL: `${baseUrl}/v1`, apiKey, includeUsage: true }).chatModel(m),
  },
];
