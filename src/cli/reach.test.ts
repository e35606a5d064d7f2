import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/parse.js';
import { globsIntersect, groupsReaching, reachableModels } from './reach.js';

describe('globsIntersect', () => {
  it.each([
    ['claude-*', 'claude-sonnet-*', true],
    ['claude-*', 'gpt-*', false],
    ['o*', '*-mini', true],
    ['gpt-4?', 'gpt-4o', true],
    ['gpt-4?', 'gpt-4.1', false],
    ['*', 'anything', true],
    ['a*b', 'a*c', false],
    ['a*b*', '*c*d', true],
    ['echo', 'echo', true],
    ['echo', 'ech?', true],
    ['echo', 'echoes', false],
    ['?', '??', false],
    ['*x', 'y*', true],
  ])('%s ∩ %s → %s', (a, b, expected) => {
    expect(globsIntersect(a, b)).toBe(expected);
    expect(globsIntersect(b, a)).toBe(expected);
  });
});

describe('reachableModels', () => {
  const config = parseConfig(
    {
      providers: { e: { type: 'echo' } },
      models: {
        'gpt-4.1': { provider: 'e' },
        'claude-sonnet': { provider: 'e' },
        'claude-*': { provider: 'e' },
        'qwen-*': { provider: 'e' },
        'claude-special': { provider: 'e' },
      },
      keyGroups: {
        all: { keys: ['k1'], models: ['*'] },
        some: { keys: ['k2'], models: ['gpt-4.1', 'claude-3-opus', 'claude-s*'] },
        none: { keys: ['k3'], models: ['gpt-4.1'], protocols: ['chat'] },
      },
    },
    { env: {} },
  );
  const reach = (group: string) =>
    reachableModels(config, config.keyGroups.get(group)!).map((r) => `${r.model.pattern}${r.whole ? '' : ` [${r.names.join(', ')}]`}`);

  it('lists whole entries for a group that may call anything', () => {
    expect(reach('all')).toEqual(['gpt-4.1', 'claude-sonnet', 'claude-special', 'claude-*', 'qwen-*']);
  });

  it('lists exact names a group pattern matches, and the part of a glob it may use', () => {
    // claude-sonnet and claude-special match claude-s*; claude-3-opus reaches the claude-* glob; qwen-* is out.
    expect(reach('some')).toEqual(['gpt-4.1', 'claude-sonnet', 'claude-special', 'claude-* [claude-3-opus, claude-s*]']);
  });

  it('finds the groups that reach a model', () => {
    const qwen = config.modelGlobs.find((m) => m.pattern === 'qwen-*')!;
    expect(groupsReaching(config, qwen).map((g) => g.name)).toEqual(['all']);
  });
});
