/** upstreamToolName: valid, unique, stable names, in one step per tool however many collide. */
import { describe, expect, it } from 'vitest';
import type { CallerTool, TranslateContext } from '../ir.js';
import { translateContext } from '../../../test/helpers/translate-context.js';
import { callerTool, upstreamToolName } from './tool-names.js';
import { expectLinear, GROWTH } from '../../../test/helpers/linear-time.js';

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;
const ctx = (): TranslateContext =>
  translateContext({ caller: 'responses', upstream: 'messages', requestedModel: 'm', upstreamModel: 'm', upstreamDialect: 'anthropic' });
const fn = (name: string, namespace?: string): CallerTool => ({ name, kind: 'function', ...(namespace !== undefined ? { namespace } : {}) });

/** Names every tool in order; checks each is valid, all distinct, and each maps back to its tool. */
function nameAll(tools: readonly CallerTool[]): { names: string[] } {
  const c = ctx();
  const names = tools.map((t) => upstreamToolName(c, t));
  const bad = names.filter((n) => !VALID.test(n));
  expect(bad).toEqual([]);
  expect(new Set(names).size).toBe(new Set(tools.map((t) => JSON.stringify(t))).size);
  const wrong = tools.filter((t, i) => JSON.stringify(callerTool(c, names[i]!)) !== JSON.stringify(t));
  expect(wrong).toEqual([]);
  return { names };
}

describe('upstreamToolName', () => {
  it.each([
    ['get_weather', fn('get_weather'), 'get_weather'],
    ['a namespace flattened', fn('run', 'shell'), 'shell__run'],
    ['invalid characters replaced', fn('a.b c'), 'a_b_c'],
    ['cut to 64 characters', fn('x'.repeat(70)), 'x'.repeat(64)],
    ['an empty name', fn(''), 'tool'],
  ])('without a collision, the name is the tool’s own: %s', (_, tool, expected) => {
    expect(nameAll([tool]).names).toEqual([expected]);
  });

  it('gives a tool met again the same name, and colliding tools the next free suffix', () => {
    const c = ctx();
    const names = [fn('a.b'), fn('a?b'), fn('a.b'), fn('a b'), fn('a?b'), fn('ab', 'x'), fn('x__ab')].map((t) => upstreamToolName(c, t));
    expect(names).toEqual(['a_b', 'a_b_2', 'a_b', 'a_b_3', 'a_b_2', 'x__ab', 'x__ab_2']);
  });

  it('skips a suffixed name another tool has as its own', () => {
    const custom = (name: string): CallerTool => ({ name, kind: 'custom' });
    expect(nameAll([fn('a_2'), fn('a'), custom('a'), fn('a', 'x'), fn('x__a'), custom('a_2')]).names).toEqual(['a_2', 'a', 'a_3', 'x__a', 'x__a_2', 'a_2_2']);
  });

  it('tells a custom tool from a function of the same name', () => {
    expect(nameAll([fn('apply_patch'), { name: 'apply_patch', kind: 'custom' }]).names).toEqual(['apply_patch', 'apply_patch_2']);
  });

  const oneChar = (n: number) => Array.from({ length: n }, (_, i) => fn(String.fromCharCode(0x100 + i)));
  const longNames = (n: number) => Array.from({ length: n }, (_, i) => fn(`${'n'.repeat(63)}${String.fromCharCode(0x100 + i)}`));
  /** `a`, `a_2`, `a_2_2`, …: each the suffixed name the one before would be given. */
  const chain = (n: number) => Array.from({ length: n }, (_, i) => fn(`a${'_2'.repeat(i)}`)).flatMap((t) => [t, fn(`${t.name}!`)]);
  const mixed = (n: number) => Array.from({ length: n }, (_, i) => fn(i % 2 ? `t${i % 7}!${i}` : `t${i % 7}_${i % 1000}`));

  it.each([
    ['50,000 one-character names that all become `_`', 50_000, oneChar],
    ['20,000 64-character names alike once sanitised', 20_000, longNames],
    ['100,000 names over a few stems, real and suffixed', 100_000, mixed],
  ])('%s: unique, valid, mapped back, and in linear time', (_, size, make) => {
    expectLinear(make, (tools) => nameAll(tools), size / GROWTH);
  });

  // Its input grows as the square of its length (each name is the one before, suffixed), so it is not timed.
  it('a chain of names that are each other’s suffixed forms: unique, valid, mapped back', () => {
    expect(nameAll(chain(2_000)).names).toHaveLength(4_000);
  });

  it('names 100,000 colliding tools in linear time', () => {
    const colliding = (n: number) => Array.from({ length: n }, (_, i) => fn(`same.${String.fromCharCode(0x100 + (i % 5000))}${i}`.slice(0, 6)));
    const c = expectLinear(
      colliding,
      (tools) => {
        const named = ctx();
        for (const t of tools) upstreamToolName(named, t);
        return named;
      },
      100_000 / GROWTH,
    );
    const tools = colliding(100_000);
    expect(c.toolNames.size).toBe(new Set(tools.map((t) => t.name)).size);
  });
});
