import { describe, expect, it } from 'vitest';
import { addNumberField } from './add-field.js';

const add = (text: string) => addNumberField(Buffer.from(text), JSON.parse(text) as Record<string, unknown>, 'max_tokens', 100, 'up').toString();

describe('addNumberField', () => {
  it.each([
    ['{"model":"up","x":1}', '{"max_tokens":100,"model":"up","x":1}'],
    ['  \n{ "model" : "up" }', '  \n{"max_tokens":100, "model" : "up" }'],
    ['{}', '{"max_tokens":100}'],
    ['{ \t}', '{"max_tokens":100 \t}'],
    ['{"model":"up","s":"{\\"max_tokens\\":1}"}', '{"max_tokens":100,"model":"up","s":"{\\"max_tokens\\":1}"}'],
  ])('splices into %j', (text, expected) => {
    expect(add(text)).toBe(expected);
    expect((JSON.parse(add(text)) as Record<string, unknown>).max_tokens).toBe(100);
  });

  it.each(['{"model":"caller","max_tokens":null}', '{"model":"caller","max_tok\\u0065ns":null}'])(
    'sets a key the body holds as null once, by re-serialising: %s',
    (text) => {
      const out = add(text);
      expect(JSON.parse(out)).toEqual({ model: 'up', max_tokens: 100 });
      expect(out.split('max_tokens')).toHaveLength(2);
    },
  );
});
