import { describe, expect, it } from 'vitest';
import { interpolateEnv } from './env.js';
import { formatPath } from './path.js';

const env = { A: 'alpha', B: 'beta', EMPTY: '' };

describe('interpolateEnv', () => {
  it.each([
    ['${A}', 'alpha'],
    ['x-${A}-${B}-y', 'x-alpha-beta-y'],
    ['${EMPTY}', ''],
    ['$${A}', '${A}'],
    ['$${A} and ${A}', '${A} and alpha'],
    ['no references', 'no references'],
    ['$A stays', '$A stays'],
    ['unclosed ${A', 'unclosed ${A'],
    ['cost: $$5', 'cost: $$5'],
    ['${UNSET:-http://127.0.0.1:11434}', 'http://127.0.0.1:11434'],
    ['${EMPTY:-fallback}', 'fallback'],
    ['${A:-fallback}', 'alpha'],
    ['${UNSET-fallback}', 'fallback'],
    ['${EMPTY-fallback}', ''],
    ['${UNSET:-}', ''],
    ['$${UNSET:-x}', '${UNSET:-x}'],
    ['${UNSET:-a:-b-c}', 'a:-b-c'],
  ])('%j → %j', (input, expected) => {
    const { value, issues } = interpolateEnv(input, env);
    expect(issues).toEqual([]);
    expect(value).toBe(expected);
  });

  it('walks nested objects and arrays, leaving keys and non-strings alone', () => {
    const raw = {
      '${A}': { list: ['${A}', 1, true, null, { deep: ['${B}'] }] },
      n: 5,
    };
    const { value, issues } = interpolateEnv(raw, env);
    expect(issues).toEqual([]);
    expect(value).toEqual({ '${A}': { list: ['alpha', 1, true, null, { deep: ['beta'] }] }, n: 5 });
  });

  it('does not modify its input', () => {
    const raw = { a: ['${A}'] };
    interpolateEnv(raw, env);
    expect(raw).toEqual({ a: ['${A}'] });
  });

  it('reports a missing variable with its name and path, keeping the text as written', () => {
    const raw = { providers: { openai: { apiKey: '${OPENAI_API_KEY}' } }, keyGroups: { dev: { keys: ['ok', 'k-${A}-${NOPE}'] } } };
    const { value, issues } = interpolateEnv(raw, env);
    expect(issues).toEqual([
      { path: 'providers.openai.apiKey', message: 'environment variable OPENAI_API_KEY is not set' },
      { path: 'keyGroups.dev.keys[1]', message: 'environment variable NOPE is not set' },
    ]);
    expect(value).toEqual(raw);
  });

  it('reports every missing variable in one string', () => {
    const { issues } = interpolateEnv({ h: '${X}:${Y}' }, {});
    expect(issues.map((i) => i.message)).toEqual([
      'environment variable X is not set',
      'environment variable Y is not set',
    ]);
  });

  it('reports a malformed reference', () => {
    const { issues } = interpolateEnv({ a: '${9lives}' }, env);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe('a');
    expect(issues[0]?.message).toContain('invalid environment variable reference "${9lives}"');
  });

  it('is not recursive: a value containing ${...} is inserted verbatim', () => {
    const { value } = interpolateEnv('${A}', { A: '${B}', B: 'no' });
    expect(value).toBe('${B}');
  });
});

describe('formatPath', () => {
  it.each([
    [[], ''],
    [['models', 'qwen-coder', 'provider'], 'models.qwen-coder.provider'],
    [['keyGroups', 'dev', 'keys', 1], 'keyGroups.dev.keys[1]'],
    [['models', 'gpt-4.1', 'features', 0], 'models.gpt-4.1.features[0]'],
    [['models', 'has space'], 'models["has space"]'],
    [['models', ''], 'models[""]'],
    [['models', '*'], 'models.*'],
  ])('%j → %s', (path, expected) => {
    expect(formatPath(path)).toBe(expected);
  });
});
