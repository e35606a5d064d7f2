/**
 * A Gemini caller through the gateway with Google's own SDK (`@google/genai`, pointed at the
 * gateway by `httpOptions.baseUrl`, a gateway key as its API key), answered natively by the echo
 * provider: whole, streamed, counted, listed; the key by header and by query; a wrong key refused
 * in Google's shape; the key nowhere in the log.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, FunctionCallingConfigMode, GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';

let gw: TestGateway;
let logFile: string;

const config: WrittenConfig = {
  providers: { echo: { type: 'echo' } },
  models: {
    'gemini-echo': { provider: 'echo', displayName: 'Echo for Gemini callers', contextWindow: 100_000, maxOutputTokens: 8192 },
    'other-echo': { provider: 'echo' },
  },
  keyGroups: { dev: { keys: [GATEWAY_KEY] } },
} as WrittenConfig;

beforeAll(async () => {
  logFile = join(mkdtempSync(join(tmpdir(), 'mgw-gemini-')), 'log.jsonl');
  gw = await startGateway(config, { logFile, captureLimit: 1 << 20 });
});
afterAll(() => gw.close());

const sdk = (apiVersion?: string, apiKey = GATEWAY_KEY) =>
  new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gw.url, ...(apiVersion ? { apiVersion } : {}), retryOptions: { attempts: 1 } } });

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('a Gemini caller on the echo model', () => {
  it.each(['v1beta', 'v1'])('generates whole and streamed content under /%s', async (version) => {
    const ai = sdk(version);
    const whole = await ai.models.generateContent({ model: 'gemini-echo', contents: 'hello gemini' });
    expect(whole.text).toBe('hello gemini');
    expect(whole.candidates?.[0]?.finishReason).toBe('STOP');
    expect(whole.usageMetadata?.promptTokenCount).toBeGreaterThan(0);

    let text = '';
    let last: unknown;
    for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-echo', contents: 'streamed words here' })) {
      text += chunk.text ?? '';
      last = chunk;
    }
    expect(text).toBe('streamed words here');
    expect(last).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { promptTokenCount: expect.any(Number) } });
  });

  it('completes a tool loop: a functionCall part, then the function response ends it', async () => {
    const ai = sdk();
    const first = await ai.models.generateContent({
      model: 'gemini-echo',
      contents: 'Paris',
      config: { tools: [{ functionDeclarations: [weather] }], toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } } },
    });
    const call = first.functionCalls?.[0];
    expect(call).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
    const second = await ai.models.generateContent({
      model: 'gemini-echo',
      contents: [
        { role: 'user', parts: [{ text: 'Paris' }] },
        { role: 'model', parts: first.candidates![0]!.content!.parts! },
        { role: 'user', parts: [{ functionResponse: { id: call!.id!, name: 'get_weather', response: { output: 'sunny' } } }] },
      ],
      config: { tools: [{ functionDeclarations: [weather] }] },
    });
    expect(second.text).toBe('Tool result: sunny');
  });

  it('counts tokens in Google\'s shape', async () => {
    const counted = await sdk().models.countTokens({ model: 'gemini-echo', contents: 'count me' });
    expect(counted.totalTokens).toBeGreaterThan(0);
  });

  it('lists and gets models in Google\'s shape', async () => {
    const ai = sdk();
    const names: string[] = [];
    for await (const model of await ai.models.list()) names.push(model.name!);
    expect(names).toEqual(['models/gemini-echo', 'models/other-echo']);
    const one = await ai.models.get({ model: 'gemini-echo' });
    expect(one).toMatchObject({ name: 'models/gemini-echo', displayName: 'Echo for Gemini callers', inputTokenLimit: 100_000, outputTokenLimit: 8192 });
    // /v1/models answers in Google's shape to a Google key, in OpenAI's to a Bearer one.
    const google = await fetch(`${gw.url}/v1/models?key=${GATEWAY_KEY}`);
    expect(await google.json()).toMatchObject({ models: [{ name: 'models/gemini-echo', supportedGenerationMethods: expect.arrayContaining(['generateContent']) }, {}] });
    const openai = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } });
    expect(await openai.json()).toMatchObject({ object: 'list' });
  });

  it('takes the key from the key query parameter as from the header', async () => {
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'by query' }] }] });
    const res = await fetch(`${gw.url}/v1beta/models/gemini-echo:generateContent?key=${GATEWAY_KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ candidates: [{ content: { parts: [{ text: 'by query' }] } }] });
    const stream = await fetch(`${gw.url}/v1beta/models/gemini-echo:streamGenerateContent?alt=sse&key=${GATEWAY_KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await stream.text()).toMatch(/^data: \{/);
  });

  it('refuses a wrong key with 401 in Google\'s shape, to the SDK and to a query key', async () => {
    const err = await sdk(undefined, 'wrong-key').models.generateContent({ model: 'gemini-echo', contents: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    const res = await fetch(`${gw.url}/v1beta/models/gemini-echo:generateContent?key=wrong-query-key`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { code: 401, message: expect.stringContaining('Invalid API key'), status: 'UNAUTHENTICATED' } });
  });

  it('answers other mistakes in Google\'s shape too, naming the field', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'x-goog-api-key': GATEWAY_KEY }, body: JSON.stringify(body) });
    const missing = await post('/v1beta/models/gemini-echo:generateContent', {});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: { code: 400, message: 'Missing required parameter: `contents`.', status: 'INVALID_ARGUMENT' } });
    const noSse = await post('/v1beta/models/gemini-echo:streamGenerateContent', { contents: [{ parts: [{ text: 'x' }] }] });
    expect(await noSse.json()).toMatchObject({ error: { code: 400, message: expect.stringContaining('alt=sse'), status: 'INVALID_ARGUMENT' } });
    const unknownModel = await post('/v1beta/models/nope:generateContent', { contents: [{ parts: [{ text: 'x' }] }] });
    expect(await unknownModel.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
    // A method the gateway does not serve is unknown, as Google answers one it does not have.
    const unknownMethod = await post('/v1beta/models/gemini-echo:embedContent', {});
    expect(unknownMethod.status).toBe(404);
    expect(await unknownMethod.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND', message: expect.stringContaining('generateContent') } });
  });

  it('never writes the key to the log, the log file or the captured exchange', async () => {
    await new Promise((r) => setTimeout(r, 50));
    const printed = gw.output.join('');
    expect(printed).toContain('gemini-echo');
    expect(printed).not.toContain(GATEWAY_KEY);
    expect(printed).not.toContain('wrong-query-key');
    const file = readFileSync(logFile, 'utf8');
    expect(file).toContain('x-goog-api-key');
    expect(file).not.toContain(GATEWAY_KEY);
    expect(file).not.toContain('wrong-query-key');
  });
});
