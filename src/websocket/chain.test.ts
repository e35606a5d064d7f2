import { describe, expect, it } from 'vitest';
import { continueFrom, inputItems, TurnFollower } from './chain.js';

const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const said = (text: string) => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const last = { id: 'resp_1', items: [user('hi'), said('hello')] };

describe('continueFrom', () => {
  it.each([
    ['the last response: its items, then the new ones, and no id', { previous_response_id: 'resp_1', input: [user('more')] }, { input: [user('hi'), said('hello'), user('more')] }],
    ['a plain-string input is one user message', { previous_response_id: 'resp_1', input: 'more' }, { input: [user('hi'), said('hello'), { type: 'message', role: 'user', content: 'more' }] }],
    ['no input: the last response alone', { previous_response_id: 'resp_1' }, { input: [user('hi'), said('hello')] }],
    ['another id is left as it is', { previous_response_id: 'resp_0', input: [user('more')] }, { previous_response_id: 'resp_0', input: [user('more')] }],
    ['no id: nothing to continue', { input: [user('more')] }, { input: [user('more')] }],
  ])('%s', (_name, body, expected) => {
    expect(continueFrom({ model: 'm', ...body }, last)).toEqual({ model: 'm', ...expected });
  });

  it('continues nothing once nothing is remembered', () => {
    const body = { previous_response_id: 'resp_1', input: [user('more')] };
    expect(continueFrom(body, undefined)).toBe(body);
  });
});

describe('inputItems', () => {
  it.each([
    ['a list', [user('a')], [user('a')]],
    ['a string', 'a', [{ type: 'message', role: 'user', content: 'a' }]],
    ['nothing', undefined, []],
  ])('%s', (_name, input, expected) => expect(inputItems(input)).toEqual(expected));
});

describe('TurnFollower', () => {
  const completed = (output: unknown[] = []) => ({ type: 'response.completed', response: { id: 'resp_2', output } });

  it('remembers the input and the items done, under the completed response id', () => {
    const f = new TurnFollower([user('hi')]);
    f.see({ type: 'response.output_item.done', item: said('hello') });
    f.see(completed([said('ignored: the items done were seen')]));
    expect(f.remembered(1 << 20)).toEqual({ id: 'resp_2', items: [user('hi'), said('hello')] });
  });

  it("takes the completed response's output when no item events came", () => {
    const f = new TurnFollower([user('hi')]);
    f.see(completed([said('hello')]));
    expect(f.remembered(1 << 20)?.items).toEqual([user('hi'), said('hello')]);
  });

  it.each([
    ['failed', { type: 'response.failed', response: { id: 'resp_2' } }],
    ['incomplete', { type: 'response.incomplete', response: { id: 'resp_2' } }],
    ['an error', { type: 'error', status: 400, error: { message: 'no' } }],
  ])('remembers nothing of a response that ended %s', (_name, event) => {
    const f = new TurnFollower([user('hi')]);
    f.see(event);
    f.see(completed());
    expect(f.remembered(1 << 20)).toBeUndefined();
  });

  it('remembers nothing before the response completed, or past the byte cap', () => {
    const f = new TurnFollower([user('x'.repeat(100))]);
    expect(f.remembered(1 << 20)).toBeUndefined();
    f.see(completed());
    expect(f.remembered(50)).toBeUndefined();
    expect(f.remembered(1000)?.id).toBe('resp_2');
  });
});

describe('continueFrom and an input of another shape', () => {
  it('leaves it for the checks to refuse', () => {
    const body = { previous_response_id: 'resp_1', input: { not: 'a list' } };
    expect(continueFrom(body, last)).toBe(body);
  });
});
