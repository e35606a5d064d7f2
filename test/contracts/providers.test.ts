/**
 * The Provider contract over every HTTP provider kind, each against a fake that refuses the
 * credential in any other header than the kind's own, and over echo, which answers locally.
 */
import type { ServerResponse } from 'node:http';
import { PROVIDER_KINDS } from '#src/providers/kinds.js';
import { afterAll, describe, expect, it } from 'vitest';
import { cannedReply } from '../helpers/canned.js';
import { AZURE_KEY, FOUNDRY_KEY, fakeAzure, fakeFoundry } from '../helpers/fake-azure.js';
import { BEDROCK_API_KEY, BEDROCK_REGION, fakeBedrock } from '../helpers/fake-bedrock.js';
import { sendJson } from '../helpers/fake-upstream.js';
import { fakeGemini } from '../helpers/fake-gemini.js';
import type { Behaviour, Received } from '../helpers/received.js';
import { startVertexContract } from '../helpers/fake-vertex.js';
import { runProviderContract, UPSTREAM_FAILURE_TESTS, type ProviderContract } from './provider.contract.js';

const KEY = 'sk-contract-secret-0123456789';

// vertex gets its tokens from a fake Google token endpoint of its own, which the failure tests leave working.
const vertexFakes = await startVertexContract();
afterAll(() => vertexFakes.close());

/** The canned answers, given only for the key in `header` (as `value`) and no other credential header. */
function requiring(header: string, value: string): Behaviour {
  return (req: Received, res: ServerResponse) => {
    const others = ['authorization', 'x-api-key', 'api-key'].filter((h) => h !== header && req.headers[h] !== undefined);
    if (req.headers[header] !== value || others.length > 0) sendJson(res, 401, { error: { message: 'bad credential', type: 'authentication_error' } });
    else cannedReply(req, res);
  };
}

const contracts: Record<(typeof PROVIDER_KINDS)[number]['type'], ProviderContract> = {
  openai: {
    entry: (origin) => ({ type: 'openai', baseUrl: `${origin}/v1`, apiKey: KEY }),
    upstream: requiring('authorization', `Bearer ${KEY}`),
    protocol: 'responses',
    path: '/v1/responses',
    secret: KEY,
  },
  anthropic: {
    entry: (origin) => ({ type: 'anthropic', baseUrl: origin, apiKey: KEY }),
    upstream: requiring('x-api-key', KEY),
    protocol: 'messages',
    path: '/v1/messages',
    secret: KEY,
  },
  'openai-compatible': {
    entry: (origin) => ({ type: 'openai-compatible', baseUrl: `${origin}/v1`, apiKey: KEY }),
    upstream: requiring('authorization', `Bearer ${KEY}`),
    protocol: 'chat',
    path: '/v1/chat/completions',
    secret: KEY,
  },
  'azure-openai': {
    entry: (origin) => ({ type: 'azure-openai', baseUrl: `${origin}/openai/v1`, apiKey: AZURE_KEY }),
    upstream: fakeAzure(AZURE_KEY),
    protocol: 'chat',
    path: '/openai/v1/chat/completions',
    secret: AZURE_KEY,
  },
  foundry: {
    entry: (origin) => ({ type: 'foundry', baseUrl: `${origin}/anthropic`, apiKey: FOUNDRY_KEY }),
    upstream: fakeFoundry({ key: FOUNDRY_KEY }),
    protocol: 'messages',
    path: '/anthropic/v1/messages',
    secret: FOUNDRY_KEY,
  },
  vertex: vertexFakes.contract,
  bedrock: {
    entry: (origin) => ({ type: 'bedrock', region: BEDROCK_REGION, baseUrl: origin, apiKey: BEDROCK_API_KEY }),
    // The contract sends bodies as prepared, before the pipeline puts them in Bedrock's envelope.
    upstream: fakeBedrock({ apiKey: BEDROCK_API_KEY, anthropicBodies: true }),
    protocol: 'messages',
    // No one path: a stream goes to invoke-with-response-stream (test/e2e/bedrock.test.ts checks both).
    secret: BEDROCK_API_KEY,
  },
  gemini: {
    entry: (origin) => ({ type: 'gemini', baseUrl: `${origin}/v1beta`, apiKey: KEY }),
    upstream: fakeGemini({ apiKey: KEY, models: ['deployment-1'] }).behaviour,
    protocol: 'gemini',
    // No one path: a stream goes to :streamGenerateContent?alt=sse (test/e2e/gemini-upstream.test.ts checks both).
    secret: KEY,
  },
  echo: {
    entry: () => ({ type: 'echo' }),
    upstream: () => undefined,
    protocol: 'chat',
    secret: KEY,
    // echo answers locally: it has no HTTP answers, and no transport to fail.
    skip: UPSTREAM_FAILURE_TESTS,
  },
};

for (const [type, contract] of Object.entries(contracts)) runProviderContract(type, contract);

describe('the contract list', () => {
  it('has every registered kind', () => {
    expect(Object.keys(contracts).sort()).toEqual(PROVIDER_KINDS.map((k) => k.type).sort());
  });
});
