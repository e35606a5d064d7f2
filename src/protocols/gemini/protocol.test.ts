/** The Gemini module: its endpoints, inspection, features, usage, stream ends and errors, table by table. */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors.js';
import { protocolEndpointAt } from '../endpoints.js';
import { renderError } from '../errors.js';
import { likelyProtocol } from '../registry.js';
import type { Feature, InboundCall, RequestLimits } from '../types.js';
import { gemini } from './protocol.js';
import { geminiUsage } from './usage.js';

const LIMITS: RequestLimits = { maxTools: 3, maxMessages: 3, maxContentBlocks: 4 };
const text = (t: string) => ({ role: 'user', parts: [{ text: t }] });
const call = (body: unknown, over: Partial<InboundCall> = {}): InboundCall => ({ operation: 'create', body, params: { model: 'gemini-x' }, ...over });
const STREAM_URL = '/v1beta/models/gemini-x:streamGenerateContent?alt=sse';

describe('Gemini endpoints', () => {
  it.each([
    ['/v1beta/models/gemini-2.5-pro:generateContent', 'create', false],
    ['/v1beta/models/gemini-2.5-pro:streamGenerateContent', 'create', true],
    ['/v1beta/models/gemini-2.5-pro:countTokens', 'count_tokens', false],
    ['/v1/models/gemini-2.5-pro:generateContent', 'create', false],
    ['/v1/models/gemini-2.5-pro:streamGenerateContent', 'create', true],
    ['/v1/models/gemini-2.5-pro:countTokens', 'count_tokens', false],
  ])('%s is %s, streaming: %s', (path, operation, stream) => {
    expect(protocolEndpointAt(path)).toMatchObject({ protocol: 'gemini', operation, stream, params: { model: 'gemini-2.5-pro' } });
  });

  it('leaves OpenAI\'s model paths alone, and guesses Gemini callers by path, header or query key', () => {
    expect(protocolEndpointAt('/v1/models/gpt-4')).toBeUndefined();
    expect(likelyProtocol('/v1/models/gpt-4', () => false)).toBe('chat');
    expect(likelyProtocol('/v1beta/models/x:embedContent', () => false)).toBe('gemini');
    expect(likelyProtocol('/v1/models', (h) => h === 'x-goog-api-key')).toBe('gemini');
    expect(likelyProtocol('/v1/models', () => false, (q) => q === 'key')).toBe('gemini');
    expect(likelyProtocol('/v1/models', (h) => h === 'anthropic-version', (q) => q === 'key')).toBe('messages');
  });

  it('says where each operation goes upstream only with the model', () => {
    expect(gemini.upstreamPath('create', { model: 'm', stream: false })).toEqual(['models', 'm:generateContent']);
    expect(gemini.upstreamPath('create', { model: 'm', stream: true })).toEqual(['models', 'm:streamGenerateContent']);
    expect(gemini.upstreamPath('count_tokens', { model: 'm', stream: false })).toEqual(['models', 'm:countTokens']);
    expect(gemini.upstreamPath('create')).toBeUndefined();
    expect(gemini.upstreamPath('compact', { model: 'm', stream: false })).toBeUndefined();
  });
});

describe('inspecting a Gemini request', () => {
  it('takes the model from the path and streaming from the endpoint', () => {
    expect(gemini.inspect(call({ contents: [text('hi')] }), LIMITS)).toEqual({ model: 'gemini-x', stream: false, features: [] });
    expect(gemini.inspect(call({ contents: [text('hi')] }, { stream: true, url: STREAM_URL }), LIMITS)).toEqual({
      model: 'gemini-x',
      stream: true,
      features: ['streaming'],
    });
    expect(gemini.inspect(call({ contents: [text('hi')] }, { params: { model: 'models/gemini-x' } }), LIMITS).model).toBe('gemini-x');
  });

  it.each<[string, unknown, Partial<InboundCall>, RegExp, string]>([
    ['a body that is no object', [], {}, /JSON object/, ''],
    ['no contents', {}, {}, /Missing required parameter: `contents`/, 'contents'],
    ['empty contents', { contents: [] }, {}, /at least one/, 'contents'],
    ['a content without parts', { contents: [{ role: 'user' }] }, {}, /contents\[0\]\.parts/, 'contents[0].parts'],
    ['a part that is no object', { contents: [{ parts: ['x'] }] }, {}, /contents\[0\]\.parts\[0\]/, 'contents[0].parts[0]'],
    ['a role that is no string', { contents: [{ role: 1, parts: [] }] }, {}, /role/, 'contents[0].role'],
    ['too many contents', { contents: [text('a'), text('b'), text('c'), text('d')] }, {}, /server\.maxMessages/, 'contents'],
    ['too many parts', { contents: [text('a'), text('b')], systemInstruction: { parts: [{ text: 'x' }, { text: 'y' }, { text: 'z' }] } }, {}, /server\.maxContentBlocks/, 'contents'],
    ['too many tools', { contents: [text('a')], tools: [{ functionDeclarations: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }, { googleSearch: {} }] }, {}, /server\.maxTools/, 'tools'],
    ['a stream without alt=sse', { contents: [text('a')] }, { stream: true, url: '/v1beta/models/m:streamGenerateContent' }, /alt=sse/, 'alt'],
    ['a count without contents', {}, { operation: 'count_tokens' }, /contents/, 'contents'],
    ['a wrapped count without contents', { generateContentRequest: {} }, { operation: 'count_tokens' }, /generateContentRequest\.contents/, 'generateContentRequest.contents'],
  ])('refuses %s with a 400 naming the field', (_name, body, over, message, param) => {
    let err: unknown;
    try {
      gemini.inspect(call(body, over), LIMITS);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ status: 400, message: expect.stringMatching(message) });
    if (param !== '') expect((err as GatewayError).param).toBe(param);
  });

  it('counts a wrapped request, and asks no feature for a count', () => {
    const wrapped = { generateContentRequest: { contents: [text('a')], tools: [{ googleSearch: {} }] } };
    expect(gemini.inspect(call(wrapped, { operation: 'count_tokens' }), LIMITS)).toEqual({ model: 'gemini-x', stream: false, features: [] });
    expect(gemini.counting?.request(wrapped)).toBe(wrapped.generateContentRequest);
    expect(gemini.counting?.answer(7)).toEqual({ totalTokens: 7 });
  });
});

describe('Gemini features', () => {
  const png = { inlineData: { mimeType: 'image/png', data: 'AAAA' } };
  it.each<[string, Record<string, unknown>, Feature[]]>([
    ['plain text', {}, []],
    ['function declarations', { tools: [{ functionDeclarations: [{ name: 'f' }] }] }, ['tools']],
    ['a built-in tool', { tools: [{ googleSearch: {} }] }, ['tools']],
    ['a forced call alone', { toolConfig: { functionCallingConfig: { mode: 'ANY' } } }, ['tools']],
    ['allowed names alone', { tool_config: { function_calling_config: { allowed_function_names: ['f'] } } }, ['tools']],
    ['AUTO calling', { toolConfig: { functionCallingConfig: { mode: 'AUTO' } } }, []],
    ['an inline image', { contents: [{ parts: [png] }] }, ['images']],
    ['a file image in snake_case', { contents: [{ parts: [{ file_data: { mime_type: 'image/jpeg', file_uri: 'gs://x' } }] }] }, ['images']],
    ['an image in a function response', { contents: [{ parts: [{ functionResponse: { name: 'f', response: {}, parts: [png] } }] }] }, ['images']],
    ['an image in the system instruction', { systemInstruction: { parts: [png] } }, ['images']],
    ['a PDF', { contents: [{ parts: [{ inlineData: { mimeType: 'application/pdf', data: 'AA' } }] }] }, []],
    ['thinking with a budget', { generationConfig: { thinkingConfig: { thinkingBudget: 1024 } } }, ['reasoning']],
    ['dynamic thinking', { generationConfig: { thinkingConfig: { thinkingBudget: -1 } } }, ['reasoning']],
    ['a thinking level', { generationConfig: { thinkingConfig: { thinkingLevel: 'LOW' } } }, ['reasoning']],
    ['an empty thinking config', { generationConfig: { thinkingConfig: {} } }, ['reasoning']],
    ['thoughts asked for in snake_case', { generation_config: { thinking_config: { include_thoughts: true } } }, ['reasoning']],
    ['thinking off', { generationConfig: { thinkingConfig: { thinkingBudget: 0 } } }, []],
    ['thoughts not asked for', { generationConfig: { thinkingConfig: { includeThoughts: false } } }, []],
  ])('%s', (_name, extra, features) => {
    const body = { contents: [text('hi')], ...extra, ...(extra.contents ? { contents: extra.contents } : {}) };
    expect(gemini.inspect(call(body), { maxTools: 10, maxMessages: 10, maxContentBlocks: 10 }).features).toEqual(features);
  });
});

describe('Gemini usage and stream ends', () => {
  it('reads input with tool-use prompts, output with thoughts, cache reads', () => {
    const usageMetadata = { promptTokenCount: 100, toolUsePromptTokenCount: 5, candidatesTokenCount: 20, thoughtsTokenCount: 30, cachedContentTokenCount: 60, totalTokenCount: 155 };
    expect(geminiUsage({ usageMetadata })).toEqual({ inputTokens: 105, outputTokens: 50, cachedTokens: 60 });
    expect(geminiUsage({ usage_metadata: { prompt_token_count: 3, candidates_token_count: 4 } })).toEqual({ inputTokens: 3, outputTokens: 4 });
    expect(geminiUsage({})).toEqual({});
  });

  it.each([
    ['a text chunk', { candidates: [{ content: { parts: [{ text: 'a' }] } }] }, false],
    ['the finishing chunk', { candidates: [{ content: { parts: [] }, finishReason: 'STOP' }] }, true],
    ['a refused prompt', { promptFeedback: { blockReason: 'SAFETY' } }, true],
    ['an error', { error: { code: 500, message: 'x', status: 'INTERNAL' } }, true],
  ])('the watcher ends on %s: %s', (_name, chunk, finished) => {
    const watch = gemini.watchStream();
    watch.onEvent({ event: undefined, data: JSON.stringify(chunk) });
    expect(watch.finished).toBe(finished);
  });
});

describe('Gemini errors', () => {
  it.each([
    [new GatewayError('authentication', 'Invalid API key.'), 401, 'UNAUTHENTICATED'],
    [new GatewayError('invalid_request', 'bad'), 400, 'INVALID_ARGUMENT'],
    [new GatewayError('permission', 'no'), 403, 'PERMISSION_DENIED'],
    [new GatewayError('not_found', 'none'), 404, 'NOT_FOUND'],
    [new GatewayError('rate_limit', 'slow'), 429, 'RESOURCE_EXHAUSTED'],
    [new GatewayError('overloaded', 'busy', { status: 529 }), 503, 'UNAVAILABLE'],
    [new GatewayError('timeout', 'late'), 504, 'DEADLINE_EXCEEDED'],
  ])('renders %s in Google\'s shape', (err, code, status) => {
    const rendered = renderError(err, gemini.errorFamily, { requestId: 'req_1' });
    expect(rendered.status).toBe(code);
    expect(JSON.parse(rendered.body)).toEqual({ error: { code, message: err.message, status } });
    expect(rendered.headers['x-request-id']).toBe('req_1');
  });

  it('ends a broken stream with an error chunk the SDK throws', () => {
    expect(gemini.watchStream().errorFrames(new GatewayError('upstream_error', 'broke off'))).toBe(
      'data: {"error":{"code":502,"message":"broke off","status":"INTERNAL"}}\n\n',
    );
  });
});
