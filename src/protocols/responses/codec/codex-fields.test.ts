/**
 * Codex's request fields on every translated pair, over its real requests (test/fixtures/clients):
 * each field is mapped to the upstream's own, or dropped, and a drop that changes the answer is
 * listed in the warnings while one that changes nothing is not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { translateContext } from '../../../../test/helpers/translate-context.js';
import type { Dialect } from '../../../providers/kind.js';
import { translatorFor } from '../../../translate/registry.js';
import type { Json } from '../../json.js';

const FIXTURES = new URL('../../../../test/fixtures/clients/', import.meta.url);
const CODEX = readdirSync(FIXTURES)
  .filter((f) => f.startsWith('codex-') && f.includes('-responses-'))
  .map((f) => [f, (JSON.parse(readFileSync(new URL(f, FIXTURES), 'utf8')) as { body: Json }).body] as const);

type Upstream = 'chat' | 'messages';
const PAIRS: readonly (readonly [Upstream, Dialect])[] = [
  ['chat', 'openai'],
  ['chat', 'compatible'],
  ['messages', 'anthropic'],
];

function translate(body: Json, upstream: Upstream, dialect: Dialect) {
  const ctx = translateContext({ caller: 'responses', upstream, requestedModel: 'm', upstreamModel: 'up-m', upstreamDialect: dialect });
  const sent = translatorFor('responses', upstream)!.request(body, ctx);
  return { sent, warnings: ctx.warnings };
}

/** Upstream request fields that only an OpenAI-family answer or the caller's telemetry would use. */
const NEVER_SENT = ['store', 'include', 'client_metadata', 'service_tier', 'text', 'verbosity'];

describe.each(CODEX)('%s', (_file, body) => {
  it.each(PAIRS)('to %s (%s): telemetry and hint fields are not sent', (upstream, dialect) => {
    const { sent } = translate(body, upstream, dialect);
    for (const field of NEVER_SENT) expect(sent).not.toHaveProperty(field);
  });

  it.each(PAIRS)('to %s (%s): the drops listed are those that change the answer, and only those', (upstream, dialect) => {
    const { warnings } = translate(body, upstream, dialect);
    // `include: ["reasoning.encrypted_content"]` is honoured, `store` and `client_metadata` change nothing.
    expect(warnings.filter((w) => /^(include|store|client_metadata)/.test(w))).toEqual([]);
    const verbosity = (body.text as Json | undefined)?.verbosity;
    expect(warnings.includes('text.verbosity')).toBe(verbosity !== undefined);
  });
});

/** One field set on a Codex request, and what each pair makes of it. */
interface FieldCase {
  readonly name: string;
  readonly set: Json;
  readonly expect: Record<Upstream, (sent: Json, warnings: readonly string[], dialect: Dialect) => void>;
}

const lastMessage = (sent: Json) => (sent.messages as Json[]).at(-1);
const systemText = (sent: Json, upstream: Upstream): string =>
  upstream === 'chat'
    ? (sent.messages as Json[])
        .filter((m) => m.role === 'system' || m.role === 'developer')
        .map((m) => (typeof m.content === 'string' ? m.content : (m.content as Json[]).map((p) => p.text).join('')))
        .join('\n')
    : (sent.system as Json[]).map((b) => b.text).join('\n');

const CASES: readonly FieldCase[] = [
  {
    name: 'plain-string input: one user message',
    set: { input: 'list the files' },
    expect: {
      chat: (sent) => expect(sent.messages).toEqual([{ role: 'user', content: 'list the files' }]),
      // (The gateway's own cache breakpoint may ride on the text block.)
      messages: (sent) => expect(sent.messages).toEqual([{ role: 'user', content: [expect.objectContaining({ type: 'text', text: 'list the files' })] }]),
    },
  },
  {
    name: 'service_tier priority: dropped and listed',
    set: { service_tier: 'priority' },
    expect: {
      chat: (sent, warnings) => {
        expect(sent).not.toHaveProperty('service_tier');
        expect(warnings).toContain('service_tier priority');
      },
      messages: (sent, warnings) => {
        expect(sent).not.toHaveProperty('service_tier');
        expect(warnings).toContain('service_tier priority');
      },
    },
  },
  {
    name: 'service_tier auto: the default, nothing to list',
    set: { service_tier: 'auto' },
    expect: {
      chat: (_sent, warnings) => expect(warnings.filter((w) => w.startsWith('service_tier'))).toEqual([]),
      messages: (_sent, warnings) => expect(warnings.filter((w) => w.startsWith('service_tier'))).toEqual([]),
    },
  },
  {
    name: 'include of something only OpenAI returns: listed',
    set: { include: ['reasoning.encrypted_content', 'message.output_text.logprobs'] },
    expect: {
      chat: (_sent, warnings) => expect(warnings).toEqual(expect.arrayContaining(['include message.output_text.logprobs'])),
      messages: (_sent, warnings) => expect(warnings).toEqual(expect.arrayContaining(['include message.output_text.logprobs'])),
    },
  },
  {
    name: 'parallel_tool_calls false: mapped',
    set: { parallel_tool_calls: false, tool_choice: 'auto' },
    expect: {
      chat: (sent) => expect(sent.parallel_tool_calls).toBe(false),
      messages: (sent) => expect(sent.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true }),
    },
  },
  {
    name: 'prompt_cache_key: sent where the upstream takes it',
    set: { prompt_cache_key: 'session-1' },
    expect: {
      chat: (sent, _w, dialect) => expect(sent.prompt_cache_key !== undefined).toBe(dialect === 'openai'),
      messages: (sent) => expect(sent).not.toHaveProperty('prompt_cache_key'),
    },
  },
  {
    // The reasoning comes back as the summary whatever was asked; Chat has no such setting, and its codec lists that.
    name: 'reasoning.summary: not sent; the effort is',
    set: { reasoning: { effort: 'high', summary: 'detailed' } },
    expect: {
      chat: (sent, warnings) => {
        expect(JSON.stringify(sent)).not.toContain('detailed');
        expect(sent.reasoning_effort).toBe('high');
        expect(warnings).toContain('reasoning summary');
      },
      messages: (sent, warnings) => {
        expect(JSON.stringify(sent)).not.toContain('detailed');
        expect(warnings.filter((w) => w.includes('summary'))).toEqual([]);
      },
    },
  },
];

describe.each(CASES)('$name', ({ set, expect: expected }) => {
  const base = CODEX[0]![1];
  it.each(PAIRS)('to %s (%s)', (upstream, dialect) => {
    const { sent, warnings } = translate({ ...base, tools: [], ...set }, upstream, dialect);
    expected[upstream](sent, warnings, dialect);
  });
});

describe('instructions changing mid-session', () => {
  const [, body] = CODEX.find(([f]) => f.includes('function-call-output'))!;
  it.each(PAIRS)('to %s (%s): the new instructions replace the old in the system prompt; the conversation is sent the same', (upstream, dialect) => {
    const first = translate({ ...body, instructions: 'Be terse.' }, upstream, dialect).sent;
    const second = translate({ ...body, instructions: 'Explain every step.' }, upstream, dialect).sent;
    expect(systemText(first, upstream)).toContain('Be terse.');
    expect(systemText(second, upstream)).toContain('Explain every step.');
    expect(systemText(second, upstream)).not.toContain('Be terse.');
    const turns = (sent: Json) => (sent.messages as Json[]).filter((m) => m.role !== 'system' && m.role !== 'developer');
    expect(turns(second)).toEqual(turns(first));
    expect(lastMessage(second)).toEqual(lastMessage(first));
  });
});
