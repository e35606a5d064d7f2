import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExchangeJson } from '../log/exchange-json.js';
import { readRecording } from './recording.js';

describe('readRecording', () => {
  it('reads one exchange per line, and skips and reports lines that are not exchanges instead of failing', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mgw-rec-')), 'log.jsonl');
    const a = { v: 1, id: 'req_a', time: '2026-01-01T00:00:00.000Z', method: 'POST', path: '/v1/messages', status: 200 };
    const b = { ...a, id: 'req_b' };
    writeFileSync(file, [JSON.stringify(a), '', 'not json', JSON.stringify({ hello: 'world' }), JSON.stringify(b), '{"id":"req_c","ti'].join('\n'));
    const got: [ExchangeJson, number][] = [];
    const stats = await readRecording(file, (json, bytes) => got.push([json, bytes]));
    expect(stats).toMatchObject({ exchanges: 2, badCount: 3 });
    expect(stats.bad.map((b) => b.line)).toEqual([3, 4, 6]);
    expect(got.map(([j]) => j.id)).toEqual(['req_a', 'req_b']);
    expect(got[0]![1]).toBeGreaterThan(JSON.stringify(a).length);
  });
});
