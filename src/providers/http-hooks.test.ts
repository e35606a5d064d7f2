/**
 * The HTTP provider's per-kind hooks, with a kind of the test's own against a fake upstream: a URL
 * that depends on the model (built from the final body's model, one segment), and headers computed
 * over the final URL and body (as a signing kind would), which replace any of the same name.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../../test/helpers/fake-upstream.js';
import { DEFAULT_TIMEOUTS } from '../config/defaults.js';
import type { ProviderConfig } from '../config/types.js';
import { GatewayError } from '../errors.js';
import { CallAbort } from './abort.js';
import { createHttpProvider, type HttpHooks } from './http.js';
import { urlUnder } from './url.js';

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
  upstream.always((_req, res) => sendJson(res, 200, { ok: true }));
});
afterAll(() => upstream.close());

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

const hooks: HttpHooks = {
  url: (config, call) => urlUnder(config.baseUrl, 'models', call.model ?? 'none', call.stream ? 'stream' : 'invoke'),
  urlPerCall: true,
  credential: (apiKey) => ({ 'x-key': apiKey }),
  sign: ({ url, body }) => ({ 'x-signature': sha(`${url.pathname}\n${sha(body)}`), 'X-Key': 'signed-over' }),
};

function provider(): ReturnType<typeof createHttpProvider> {
  const config: ProviderConfig = {
    id: 'p',
    type: 'test',
    baseUrl: `${upstream.url}/base`,
    apiKey: 'secret-key-123',
    headers: {},
    protocols: new Set(['chat']),
    timeouts: DEFAULT_TIMEOUTS,
    retries: 0,
    own: {},
    secrets: [],
    credentials: [],
  };
  return createHttpProvider(config, hooks);
}

async function send(model: string, stream: boolean) {
  const p = provider();
  const json = { model, messages: [] };
  const body = Buffer.from(JSON.stringify(json));
  try {
    const abort = new CallAbort();
    const res = await p.send({ protocol: 'chat', operation: 'create', headers: {}, body, json, stream, abort, signal: abort.signal });
    for await (const _ of res.body);
    return { got: upstream.last(), body };
  } finally {
    await p.close();
  }
}

describe('HTTP provider hooks', () => {
  it.each([
    ['llama-3', false, '/base/models/llama-3/invoke'],
    ['llama-3', true, '/base/models/llama-3/stream'],
    ['a/../../admin?x=1', false, '/base/models/a%2F..%2F..%2Fadmin%3Fx%3D1/invoke'],
  ])('model %j, stream %s: the URL is %s', async (model, stream, path) => {
    const { got } = await send(model, stream);
    expect(got.url).toBe(path);
  });

  it('headers computed over the final URL and body go with the call, replacing one of the same name', async () => {
    const { got, body } = await send('m', false);
    expect(got.headers['x-key']).toBe('signed-over');
    expect(got.rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === 'x-key')).toHaveLength(1);
    expect(got.headers['x-signature']).toBe(sha(`${got.url}\n${sha(got.body)}`));
    expect(got.body.equals(body)).toBe(true);
  });

  it('a model that cannot be a path segment is the caller\'s bad request, sent nowhere', async () => {
    const before = upstream.received.length;
    const err = await send('..', false).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).kind).toBe('invalid_request');
    expect(upstream.received.length).toBe(before);
  });
});
