import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { changeLine, formatApplied, formatRejected, formatRetired } from './reload-summary.js';

const plain = new Chalk({ level: 0 });
const colour = new Chalk({ level: 1 });
const at = new Date(2026, 0, 2, 9, 5, 7).getTime();

describe('reload summary', () => {
  it.each([
    [{ section: 'key', op: 'added', name: 'dev:alice', fields: [] }, '  + key      dev:alice'],
    [{ section: 'provider', op: 'removed', name: 'ollama', detail: 'openai-compatible, http://h/v1', fields: [] }, '  - provider ollama (openai-compatible, http://h/v1)'],
    [
      { section: 'model', op: 'changed', name: 'm', fields: [{ field: 'route', from: 'a', to: 'b/x' }, { field: 'features', from: 'tools', to: '(none)' }] },
      '  ~ model    m: re-mapped a → b/x; features tools → (none)',
    ],
    [
      { section: 'provider', op: 'changed', name: 'openai', fields: [{ field: 'credential', secret: true }, { field: 'headers.api-key', secret: true }] },
      '  ~ provider openai: credential changed; headers.api-key changed',
    ],
  ] as const)('%j', (change, line) => {
    expect(changeLine(change, plain)).toBe(line);
  });

  it('colours additions green, removals red, changes yellow', () => {
    expect(changeLine({ section: 'key', op: 'added', name: 'k', fields: [] }, colour)).toContain('\x1b[32m+');
    expect(changeLine({ section: 'key', op: 'removed', name: 'k', fields: [] }, colour)).toContain('\x1b[31m-');
    expect(changeLine({ section: 'group', op: 'changed', name: 'g', fields: [] }, colour)).toContain('\x1b[33m~');
  });

  it('heads the list, adds what could not be applied and who is still on the old config', () => {
    const text = formatApplied(
      {
        file: 'gateway.config.json',
        generation: 3,
        applied: [{ section: 'key', op: 'added', name: 'dev:alice', fields: [] }],
        notApplied: [
          { field: 'port', from: '8787', to: '9000' },
          { field: 'dataDir', from: '(default)', to: '/srv/mg' },
          { field: 'state.redis', secret: true },
          { field: 'metrics.port', from: '9464', to: '9465' },
          { field: 'tracing', from: 'off', to: 'on' },
        ],
        url: 'http://127.0.0.1:8787',
        inFlight: 2,
        now: at,
      },
      plain,
    );
    expect(text.split('\n')).toEqual([
      '09:05:07 ↻ reloaded gateway.config.json (config #3): 1 change',
      '  + key      dev:alice',
      '  ! server   port 8787 → 9000 not applied: a running server cannot move; still listening on http://127.0.0.1:8787 (restart serve to use the new address)',
      '  ! server   dataDir (default) → /srv/mg not applied: the data folder is read at start (restart serve to use it)',
      '  ! server   state.redis changed not applied: the gateway connects to Redis at start (restart serve to use it)',
      '  ! server   metrics.port 9464 → 9465 not applied: metrics are set up at start (restart serve to use this)',
      '  ! server   tracing off → on not applied: tracing is set up at start (restart serve to use this)',
      '  2 requests in flight finish on config #2',
    ]);
  });

  it('words a refused edit and a retired config', () => {
    expect(formatRejected('g.yaml', 2, 'Invalid configuration in /x/g.yaml:\n  - models.m.provider: unknown', at, plain)).toBe(
      '09:05:07 ✗ g.yaml not applied; still serving config #2:\nInvalid configuration in /x/g.yaml:\n  - models.m.provider: unknown',
    );
    expect(formatRetired(1, 1, at, plain)).toBe('09:05:07 config #1 retired: its last request finished; its providers are closed');
    expect(formatRetired(1, 5, at, plain)).toBe('09:05:07 config #1 retired: the 5 requests it was serving finished; its providers are closed');
  });
});

describe('reload summary of hostile config text', () => {
  // Config names and values, and the loader's message quoting them, could hold escape sequences.
  const HOSTILE = '\x1b]0;pwned\x07\u009b2J\u202e';
  const SHOWN = '\\x1b]0;pwned\\x07\\x9b2J\\u202e';
  const RAW_UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

  it.each([
    ['a name', changeLine({ section: 'model', op: 'added', name: `m${HOSTILE}`, fields: [] }, plain)],
    ['a detail', changeLine({ section: 'provider', op: 'removed', name: 'p', detail: `openai, http://h${HOSTILE}`, fields: [] }, plain)],
    ['a changed field', changeLine({ section: 'model', op: 'changed', name: 'm', fields: [{ field: 'route', from: 'a', to: `b${HOSTILE}` }] }, plain)],
    ['a file name', formatApplied({ file: `f${HOSTILE}.json`, generation: 2, applied: [], notApplied: [], url: 'http://x', inFlight: 0, now: at }, plain)],
    ['the loader message, its lines kept', formatRejected('f.json', 1, `Invalid configuration:\n  - models["m${HOSTILE}"]\r`, at, plain)],
  ])('%s', (_what, text) => {
    expect(text).not.toMatch(RAW_UNSAFE);
    expect(text).toContain(SHOWN);
  });

  it('keeps its own colours', () => {
    const line = changeLine({ section: 'key', op: 'added', name: `k${HOSTILE}`, fields: [] }, colour);
    expect(line).toContain('\x1b[32m+');
    expect(line.replace(/\x1b\[\d+m/g, '')).not.toMatch(RAW_UNSAFE);
  });
});
