import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8 } from './decode-utf8.js';

const FIXTURES = new URL('../../test/fixtures/clients/', import.meta.url);
const PAD = 'a'.repeat(20_000);

describe('decodeUtf8', () => {
  it('reads any valid UTF-8 exactly as toString does, on both sides of the transcoding threshold', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.boolean(), fc.boolean(), (text, padded, bom) => {
        const s = `${bom ? '\uFEFF' : ''}${padded ? PAD : ''}${text}${padded ? PAD : ''}`;
        const raw = Buffer.from(s, 'utf8');
        expect(decodeUtf8(raw)).toBe(raw.toString('utf8'));
      }),
      { numRuns: 300 },
    );
  });

  it('reads invalid UTF-8 as toString does (replacement characters included)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const raw = Buffer.concat([Buffer.from(PAD), Buffer.from('é'), Buffer.from(bytes), Buffer.from(PAD)]);
        expect(decodeUtf8(raw)).toBe(raw.toString('utf8'));
      }),
      { numRuns: 300 },
    );
  });

  it.each(readdirSync(FIXTURES).filter((f) => f.endsWith('.json')))('reads the client fixture %s, with non-ASCII text, as toString does', (file) => {
    const body = JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as unknown;
    const raw = Buffer.from(`${JSON.stringify(body)}${PAD}é😀`, 'utf8');
    expect(decodeUtf8(raw)).toBe(raw.toString('utf8'));
  });
});
