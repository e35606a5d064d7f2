/**
 * Vertex's envelope for Claude: what is moved, kept, renamed and left out (and named), over the
 * bodies and headers Claude Code and the SDKs send. The caller's body is never changed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EnvelopeCall } from '../kind.js';
import { claudeEnvelope, VERTEX_ANTHROPIC_VERSION } from './claude-envelope.js';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../test/fixtures/clients/${name}`, import.meta.url), 'utf8')) as {
    headers: Record<string, string>;
    body: Record<string, unknown>;
  };

const call = (json: Record<string, unknown>, headers: Record<string, string> = {}, operation: EnvelopeCall['operation'] = 'create'): EnvelopeCall => ({
  protocol: 'messages',
  operation,
  json,
  headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
});

const hi = { model: 'claude-opus-4-6', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };

interface Case {
  readonly name: string;
  readonly call: EnvelopeCall;
  /** Fields of the result's body (undefined: absent). */
  readonly body: Record<string, unknown>;
  readonly header: string | undefined;
  readonly dropped: readonly string[];
}

const cases: readonly Case[] = [
  {
    name: 'a create: no model, Vertex\'s version, the stream flag kept, no anthropic-version header',
    call: call({ ...hi, stream: true }),
    body: { model: undefined, anthropic_version: VERTEX_ANTHROPIC_VERSION, stream: true, max_tokens: 16, anthropic_beta: undefined },
    header: undefined,
    dropped: [],
  },
  {
    name: 'a count keeps the model, which Vertex\'s counter reads from the body',
    call: call(hi, {}, 'count_tokens'),
    body: { model: 'claude-opus-4-6', anthropic_version: VERTEX_ANTHROPIC_VERSION },
    header: undefined,
    dropped: [],
  },
  {
    name: 'betas: accepted ones in the body (and the header where Vertex reads it), tool search under Vertex\'s name, the rest named',
    call: call(hi, { 'anthropic-beta': ' interleaved-thinking-2025-05-14, context-1m-2025-08-07,advanced-tool-use-2025-11-20 ,claude-code-20250219,effort-2025-11-24' }),
    body: { anthropic_beta: ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07', 'tool-search-tool-2025-10-19'] },
    header: 'interleaved-thinking-2025-05-14,tool-search-tool-2025-10-19',
    dropped: ['anthropic-beta claude-code-20250219', 'anthropic-beta effort-2025-11-24'],
  },
  {
    name: 'a beta asked twice, once in the body, goes once',
    call: call({ ...hi, anthropic_beta: ['context-management-2025-06-27'] }, { 'anthropic-beta': 'context-management-2025-06-27' }),
    body: { anthropic_beta: ['context-management-2025-06-27'] },
    header: 'context-management-2025-06-27',
    dropped: [],
  },
  {
    name: 'fields of features Vertex does not offer are left out and named',
    call: call({ ...hi, mcp_servers: [{ type: 'url', url: 'https://mcp.example.com', name: 'x' }], container: 'c-1', speed: 'fast', metadata: { user_id: 'u' } }),
    body: { mcp_servers: undefined, container: undefined, speed: undefined, metadata: { user_id: 'u' } },
    header: undefined,
    dropped: ['mcp_servers', 'container', 'speed'],
  },
  {
    name: 'cache_control scope is taken out wherever it is, the rest of cache_control kept',
    call: call({
      ...hi,
      system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral', scope: 'global' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'r', cache_control: { type: 'ephemeral', ttl: '1h', scope: 'global' } }] },
          ],
        },
      ],
    }),
    body: {
      system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'r', cache_control: { type: 'ephemeral', ttl: '1h' } }] }] },
      ],
    },
    header: undefined,
    dropped: ['cache_control scope'],
  },
];

describe('the Vertex envelope for Claude', () => {
  it.each(cases)('$name', ({ call: c, body, header, dropped }) => {
    const before = JSON.stringify(c.json);
    const out = claudeEnvelope(c);
    for (const [field, value] of Object.entries(body)) {
      if (value === undefined) expect(out.json).not.toHaveProperty(field);
      else expect(out.json[field]).toEqual(value);
    }
    expect(out.headers['anthropic-beta']).toBe(header);
    expect(out.headers).not.toHaveProperty('anthropic-version');
    expect(out.headers['content-type']).toBe('application/json');
    expect(out.dropped).toEqual(dropped);
    expect(JSON.stringify(c.json)).toBe(before);
  });

  it.each(['claude-code-2.1.330-messages-first-turn.json', 'claude-code-2.1.330-count-tokens.json'])(
    "Claude Code's %s: every beta is sent or named, the body otherwise as sent",
    (name) => {
      const { headers, body } = fixture(name);
      const operation = name.includes('count') ? 'count_tokens' : 'create';
      const out = claudeEnvelope(call(body, { 'anthropic-beta': headers['anthropic-beta']! }, operation));
      const asked = headers['anthropic-beta']!.split(',');
      const sent = (out.json.anthropic_beta as string[] | undefined) ?? [];
      // Tool search goes under Vertex's name for it.
      const vertexName = (beta: string) => (beta === 'advanced-tool-use-2025-11-20' ? 'tool-search-tool-2025-10-19' : beta);
      for (const beta of asked) expect(sent.includes(vertexName(beta)) !== out.dropped.includes(`anthropic-beta ${beta}`), beta).toBe(true);
      const { model, ...rest } = body;
      for (const [field, value] of Object.entries(rest)) expect(out.json[field]).toEqual(value);
      expect('model' in out.json).toBe(operation === 'count_tokens');
      expect(model).toBeTypeOf('string');
    },
  );
});
