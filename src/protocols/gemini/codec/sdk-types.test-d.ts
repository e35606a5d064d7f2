/**
 * Type drift: what this codec writes must fit the official `@google/genai` types, so a field the
 * SDK renames or retypes fails `vitest --typecheck` here instead of surprising a client. The SDK
 * types enumerations as TypeScript enums; the wire has their string values.
 */
import type * as Sdk from '@google/genai';
import { describe, expectTypeOf, it } from 'vitest';
import type { GeminiRequestBody } from './fixtures/requests.js';
import type * as Wire from './wire.js';

type Values<E extends string> = `${E}`;

describe('emitted shapes fit the SDK types', () => {
  it('parts and contents', () => {
    expectTypeOf<Wire.Part>().toExtend<Sdk.Part>();
    expectTypeOf<Wire.Content>().toExtend<Sdk.Content>();
  });

  it('finish reasons, usage, candidates and the answer', () => {
    expectTypeOf<Wire.FinishReason>().toEqualTypeOf<Values<Sdk.FinishReason>>();
    expectTypeOf<Wire.UsageMetadata>().toExtend<Sdk.GenerateContentResponseUsageMetadata>();
    expectTypeOf<Omit<Wire.Candidate, 'finishReason'>>().toExtend<Sdk.Candidate>();
    expectTypeOf<Omit<Wire.GenerateContentResponse, 'candidates'>>().toExtend<Pick<Sdk.GenerateContentResponse, 'usageMetadata' | 'modelVersion' | 'responseId'>>();
  });

  it('the request body', () => {
    expectTypeOf<Wire.FunctionDeclaration>().toExtend<Sdk.FunctionDeclaration>();
    expectTypeOf<Wire.FunctionCallingMode>().toExtend<Values<Sdk.FunctionCallingConfigMode>>();
    expectTypeOf<Wire.ThinkingLevel>().toExtend<Values<Sdk.ThinkingLevel>>();
    expectTypeOf<Omit<Wire.GenerationConfig, 'thinkingConfig'>>().toExtend<Sdk.GenerationConfig>();
    expectTypeOf<Omit<NonNullable<Wire.GenerationConfig['thinkingConfig']>, 'thinkingLevel'>>().toExtend<Sdk.ThinkingConfig>();
    expectTypeOf<Omit<Wire.RequestBody, 'toolConfig' | 'generationConfig'>>().toExtend<Omit<GeminiRequestBody, 'toolConfig' | 'generationConfig'>>();
  });
});
