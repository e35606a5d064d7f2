/** Model labels stay within what the config names, unless `model` is listed. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/parse.js';
import { newRecord } from '../log/record.js';
import { modelLabels, optionalLabelValues } from './labels.js';

const config = parseConfig(
  {
    providers: { openai: { type: 'openai', apiKey: 'sk-test' }, local: { type: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1' } },
    models: {
      'gpt-4.1': { provider: 'openai', upstreamModel: 'gpt-4.1-2025' },
      'qwen-*': { provider: 'local' },
      'fixed-*': { provider: 'local', upstreamModel: 'one-model' },
    },
    keyGroups: { dev: { keys: [{ name: 'alice', key: 'dev-key-0123456789' }] } },
  },
  { env: {} },
);

const record = (fields: { model?: string; upstreamModel?: string; servedBy?: string }) => Object.assign(newRecord('r', 0, 0, 'POST', '/v1/chat/completions'), fields);

describe('modelLabels', () => {
  it.each([
    ['an exact entry: the names', { model: 'gpt-4.1', upstreamModel: 'gpt-4.1-2025' }, ['gpt-4.1', 'gpt-4.1-2025']],
    ['a glob: its pattern, whatever the caller sent', { model: 'qwen-anything-0001', upstreamModel: 'qwen-anything-0001' }, ['qwen-*', 'qwen-*']],
    ['a glob with a fixed upstream model: that model', { model: 'fixed-x', upstreamModel: 'one-model' }, ['fixed-*', 'one-model']],
    ['a name no entry matches', { model: 'made-up-name' }, ['unknown', '']],
    ['a fallback: the sent name follows the entry that served', { model: 'qwen-a', servedBy: 'gpt-4.1', upstreamModel: 'gpt-4.1-2025' }, ['qwen-*', 'gpt-4.1-2025']],
    ['no model read', {}, ['', '']],
  ])('%s', (_what, fields, expected) => {
    expect(modelLabels(config, record(fields), false)).toEqual(expected);
  });

  it('with "model" listed: the names as requested and sent', () => {
    expect(modelLabels(config, record({ model: 'qwen-anything-0001', upstreamModel: 'qwen-anything-0001' }), true)).toEqual([
      'qwen-anything-0001',
      'qwen-anything-0001',
    ]);
  });
});

describe('optionalLabelValues', () => {
  const r = Object.assign(newRecord('r', 0, 0, 'POST', '/'), { keyGroup: 'dev', keyId: 'abcd1234', keyName: 'alice', sessionId: 's-1' });
  it.each([
    [[], []],
    [['keyGroup'], ['dev']],
    [['key', 'keyGroup'], ['dev', 'alice']],
    [['model'], []],
  ] as const)('%j → %j', (listed, expected) => {
    expect(optionalLabelValues(listed, r)).toEqual(expected);
  });
});
