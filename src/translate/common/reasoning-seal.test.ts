import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isSeal, reasoningSeal } from './reasoning-seal.js';

const seal = reasoningSeal(randomBytes(32));

describe('reasoning seals', () => {
  it.each([
    ['plain reasoning text', 'Let me think.', {}],
    ['OpenAI encrypted reasoning with its item id, the text its summary', 'Summary.', { encrypted: 'gAAAA…', id: 'rs_1', summary: true }],
    ['OpenRouter reasoning details', '', { details: [{ type: 'reasoning.encrypted', data: 'xyz', index: 0 }] }],
    ['text in any script', 'Überlegung: 思考 🙂', {}],
    ['the reasoning text inside, for a caller that keeps only the seal', '', { text: 'Let me think.', signature: 'EqQB' }],
  ] as const)('opens what it sealed: %s', (_name, text, carried) => {
    const token = seal.seal(text, carried);
    expect(isSeal(token)).toBe(true);
    expect(seal.open(token, text)).toEqual(carried);
  });

  it('does not open over another text, another key, or a changed token', () => {
    const token = seal.seal('the reasoning', { encrypted: 'abc' });
    expect(seal.open(token, 'the reasoning!')).toBeUndefined();
    expect(reasoningSeal(randomBytes(32)).open(token, 'the reasoning')).toBeUndefined();
    const [prefix, payload, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ e: 'other' })).toString('base64url');
    expect(seal.open(`${prefix}.${forged}.${mac}`, 'the reasoning')).toBeUndefined();
    expect(seal.open(`${prefix}.${payload}.${mac!.slice(0, -2)}`, 'the reasoning')).toBeUndefined();
    expect(seal.open(`${prefix}.${payload}`, 'the reasoning')).toBeUndefined();
  });

  it("is never taken for Anthropic's signature, nor opens one", () => {
    expect(isSeal('EqQBCkgIARABGAIiQL…')).toBe(false);
    expect(seal.open('EqQBCkgIARABGAIiQL', 'text')).toBeUndefined();
  });
});
