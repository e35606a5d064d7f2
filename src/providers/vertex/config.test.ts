/**
 * The vertex kind's config through `parseConfig` (its fields, base URLs per region, refusals) and
 * its URLs (endpoint.ts). The HTTP side is in test/contracts/providers.test.ts and test/e2e/vertex.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/parse.js';
import { modelCallUrl, type ModelCall } from './endpoint.js';
import { configIssues } from '../../../test/helpers/config-issues.js';

const withVertex = (entry: Record<string, unknown>) => ({
  providers: { vx: { type: 'vertex', ...entry } },
  models: { claude: { provider: 'vx', upstreamModel: 'claude-sonnet-4-5@20250929' } },
});

describe('vertex config', () => {
  it.each([
    [{ region: 'us-east5' }, 'https://us-east5-aiplatform.googleapis.com'],
    [{ region: 'europe-west1' }, 'https://europe-west1-aiplatform.googleapis.com'],
    [{ region: 'global' }, 'https://aiplatform.googleapis.com'],
    [{ region: 'us' }, 'https://aiplatform.us.rep.googleapis.com'],
    [{ region: 'eu' }, 'https://aiplatform.eu.rep.googleapis.com'],
    [{ region: 'us-east5', baseUrl: 'http://127.0.0.1:9000/' }, 'http://127.0.0.1:9000'],
  ])('%j: base URL %s, speaks messages and gemini (per model), its fields kept', (entry, baseUrl) => {
    const p = parseConfig(withVertex({ ...entry, project: 'my-project' }), { env: {} }).providers.get('vx')!;
    expect(p.baseUrl).toBe(baseUrl);
    expect([...p.protocols]).toEqual(['messages', 'gemini']);
    expect(p.own).toMatchObject({ region: entry.region, project: 'my-project' });
    expect(p.apiKey).toBeUndefined();
  });

  it('takes the region, project and credentials file from the environment', () => {
    const raw = withVertex({ region: '${CLOUD_ML_REGION}', project: '${PROJECT}', credentialsFile: '${GOOGLE_KEY}' });
    const p = parseConfig(raw, { env: { CLOUD_ML_REGION: 'global', PROJECT: 'env-project', GOOGLE_KEY: 'key.json' } }).providers.get('vx')!;
    expect(p.own).toEqual({ region: 'global', project: 'env-project', credentialsFile: 'key.json' });
    expect(p.baseUrl).toBe('https://aiplatform.googleapis.com');
  });

  it.each([
    [{}, 'region'],
    [{ region: 'US East 5' }, 'region'],
    [{ region: 'us-east5', project: 'Not A Project/../x' }, 'project'],
    [{ region: 'us-east5', credentialsFile: '' }, 'credentialsFile'],
    [{ region: 'us-east5', apiKey: 'AIza-not-for-claude' }, 'apiKey'],
  ])('%j is refused at %s', (entry, field) => {
    expect(configIssues(withVertex(entry)).map((i) => i.path)).toContain(`providers.vx.${field}`);
  });
});

describe('vertex URLs', () => {
  const base = 'https://us-east5-aiplatform.googleapis.com';
  const call = (c: Partial<ModelCall>): ModelCall => ({ publisher: 'anthropic', operation: 'create', model: 'claude-sonnet-4-5@20250929', stream: false, ...c });
  const models = '/v1/projects/my-project/locations/us-east5/publishers/anthropic/models';

  it.each([
    [call({}), `${models}/claude-sonnet-4-5@20250929:rawPredict`],
    [call({ stream: true }), `${models}/claude-sonnet-4-5@20250929:streamRawPredict`],
    [call({ model: 'claude-opus-4-6', stream: true }), `${models}/claude-opus-4-6:streamRawPredict`],
    [call({ operation: 'count_tokens', stream: true }), `${models}/count-tokens:rawPredict`],
  ])('%j → %s', (c, path) => {
    const url = modelCallUrl(base, 'my-project', 'us-east5', c);
    expect(url.origin).toBe(base);
    expect(url.pathname).toBe(path);
    expect(url.search).toBe('');
  });

  it('keeps a base URL path (a proxy) and drops its query', () => {
    const url = modelCallUrl('http://127.0.0.1:9000/vertex/?x=1', 'p-123456', 'global', call({}));
    expect(url.href).toBe('http://127.0.0.1:9000/vertex/v1/projects/p-123456/locations/global/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict');
  });

  // A model name comes from the request when a glob routes it: none may add a segment, a method or a query.
  it.each(['claude/../../other/models/x', 'claude:streamRawPredict', 'claude?alt=sse', 'claude#x', 'claude/x', '..', 'claude@', 'claude sonnet', ''])(
    'refuses the model name %j',
    (model) => {
      expect(() => modelCallUrl(base, 'my-project', 'us-east5', call({ model }))).toThrow(RangeError);
    },
  );

  it('has no compaction call', () => {
    expect(() => modelCallUrl(base, 'my-project', 'us-east5', call({ operation: 'compact' }))).toThrow(RangeError);
  });
});
