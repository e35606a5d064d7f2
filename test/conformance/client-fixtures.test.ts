/**
 * Real Claude Code, Codex and SDK requests (test/fixtures/clients) translated to
 * every other protocol: each must translate without error, and what must
 * survive does: the client's function tools (namespaces flattened, hosted tools
 * listed as dropped), the system text, every tool result paired with its call,
 * and cache hints where the target has them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Protocol } from '#src/protocols/types.js';
import { codecs } from '#src/translate/codecs.js';
import type * as Ir from '#src/translate/ir.js';
import { translatorFor } from '#src/translate/registry.js';
import { callerTool } from '#src/translate/common/tool-names.js';
import type { Json } from '#src/translate/types.js';

const dir = new URL('../fixtures/clients/', import.meta.url);

const protocolOf = (path: string): Protocol | undefined =>
  path.startsWith('/v1/messages') && !path.includes('count_tokens') ? 'messages' : path.startsWith('/v1/responses') ? 'responses' : path.startsWith('/v1/chat') ? 'chat' : undefined;

const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((file) => ({ file, ...(JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { path: string; body: Json }) }))
  .flatMap((f) => {
    const caller = protocolOf(f.path);
    return caller ? [{ ...f, caller }] : [];
  });

function context(caller: Protocol, upstream: Protocol, dialect: Ir.TranslateContext['upstreamDialect']): Ir.TranslateContext {
  let n = 0;
  return {
    caller,
    upstream,
    requestedModel: 'm',
    upstreamModel: 'up',
    upstreamDialect: dialect,
    now: () => 1_700_000_000_000,
    newId: (p) => `${p}${++n}`,
    warnings: [],
    toolNames: new Map(),
  };
}

const systemText = (ir: Ir.Request) =>
  [...ir.system.map((p) => p.text), ...ir.messages.flatMap((m) => (m.role === 'system' ? m.content.map((p) => p.text) : []))].join('\n');
const cacheHints = (ir: Ir.Request) =>
  [...ir.system, ...ir.tools, ...ir.messages.flatMap((m) => m.content as readonly { cacheControl?: unknown }[])].filter((p) => p.cacheControl !== undefined)
    .length;

const targets: [Protocol, Ir.TranslateContext['upstreamDialect']][] = [
  ['chat', 'compatible'],
  ['chat', 'openai'],
  ['responses', 'openai'],
  ['messages', 'anthropic'],
];

it('finds the client fixtures', () => {
  expect(fixtures.map((f) => f.caller).sort()).toEqual(['chat', 'messages', 'messages', 'messages', 'messages', 'responses', 'responses', 'responses', 'responses']);
});

describe.each(fixtures)('$file', ({ caller, body }) => {
  it.each(targets.filter(([p]) => p !== caller))('→ %s (%s)', (upstream, dialect) => {
    // The caller's request as it reads for this target (a few client-specific lines depend on the target).
    const callerIr = codecs[caller].decodeRequest(body, context(caller, upstream, dialect));
    const ctx = context(caller, upstream, dialect);
    const out = translatorFor(caller, upstream)!.request(body, ctx);
    expect(out.model).toBe('up');
    const upIr = codecs[upstream].decodeRequest(out, context(upstream, upstream, dialect));

    // Every function tool the client offered is there, under a name that maps back to it.
    const offered = callerIr.tools.map((t) => `${t.namespace ?? ''}/${t.name}/${t.kind}`).sort();
    const sent = upIr.tools.map((t) => {
      const back = callerTool(ctx, t.name);
      return `${back.namespace ?? ''}/${back.name}/${back.kind}`;
    });
    expect(sent.sort()).toEqual(offered);
    for (const t of upIr.tools) expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    // Hosted tools cannot follow; they are listed, not lost silently.
    const hosted = ((body.tools as Json[] | undefined) ?? []).filter((t) => ['web_search', 'web_search_preview'].includes(String(t.type)));
    if (hosted.length > 0) expect(ctx.warnings.join(' ')).toMatch(/web_search/);

    // The system text survives (words, not layout: some targets join parts). Compatible Chat servers get
    // mid-conversation system text as user text in place: their chat templates refuse a late system message.
    const words = (s: string) => s.split(/\s+/).filter(Boolean);
    const userTexts = (ir: Ir.Request) =>
      ir.messages.flatMap((m) => (m.role === 'user' ? m.content.filter((p) => p.type === 'text').map((p) => (p as Ir.TextPart).text) : []));
    if (upstream === 'chat' && dialect === 'compatible') {
      const leading = (ir: Ir.Request) => words(ir.system.map((p) => p.text).join('\n'));
      expect(leading(upIr)).toEqual(leading(callerIr));
      const mid = callerIr.messages.flatMap((m) => (m.role === 'system' ? m.content.map((p) => p.text) : []));
      for (const text of mid) expect(userTexts(upIr)).toContain(text);
      expect(upIr.messages.some((m) => m.role === 'system')).toBe(false);
    } else {
      expect(words(systemText(upIr))).toEqual(words(systemText(callerIr)));
    }

    // Every tool result answers a call made earlier, with the same id.
    const calls = new Set<string>();
    for (const m of upIr.messages) {
      for (const p of m.content) {
        if (p.type === 'tool_call') calls.add(p.id);
        if (p.type === 'tool_result') expect(calls.has(p.callId), `result for ${p.callId}`).toBe(true);
      }
    }
    const callerCalls = callerIr.messages.flatMap((m) => m.content.filter((p) => p.type === 'tool_call').map((p) => (p as Ir.ToolCallPart).id));
    expect([...calls]).toEqual(callerCalls.map((id) => (upstream === 'messages' ? id.replace(/[^a-zA-Z0-9_-]/g, '_') : id)));

    // Cache hints reach Anthropic (at most four) and compatible Chat servers; OpenAI caches by itself.
    const hints = Math.min(cacheHints(callerIr), 4);
    if (upstream === 'messages' && (caller === 'messages' || hints > 0)) expect(cacheHints(upIr)).toBe(hints);
    if (upstream === 'messages' && caller !== 'messages' && hints === 0) {
      // OpenAI-protocol callers rely on automatic caching: the gateway marks the conversation's end for Anthropic.
      expect(cacheHints(upIr)).toBeGreaterThan(0);
      expect(upIr.messages.at(-1)?.content.at(-1)).toHaveProperty('cacheControl', { type: 'ephemeral' });
    }
    if (upstream === 'responses' || dialect === 'openai') expect(cacheHints(upIr)).toBe(0);

    // Nothing of the conversation is lost: the same number of user turns with text.
    expect(userTexts(upIr).join('\n')).toContain(userTexts(callerIr).at(-1) ?? '');
  });
});

/**
 * Claude Code's betas (`anthropic-beta`) switch on body fields that only Anthropic reads. On a
 * translated route each is mapped to the upstream's own field, or dropped and listed when dropping
 * it changes what the model sees, and none of them reaches the upstream as it was.
 */
describe("Claude Code's beta-enabled fields on translated routes", () => {
  const claudeCode = fixtures.filter((f) => f.file.startsWith('claude-code-'));
  const tools = (b: Json) => b.tools as Json[];
  const withTool = (b: Json, extra: Json): Json => ({ ...b, tools: tools(b).map((t) => (t.name === 'Bash' ? { ...t, ...extra } : t)) });

  type Case = [field: string, vary: (b: Json) => Json, expect: (up: Ir.Request, warnings: string[]) => void];
  const cases: Case[] = [
    ['context_management that clears nothing (as sent)', (b) => b, (_up, w) => expect(w).not.toContain('context_management')],
    [
      'context_management that clears tool results',
      (b) => ({ ...b, context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] } }),
      (_up, w) => expect(w).toContain('context_management'),
    ],
    ['output_config.effort', (b) => ({ ...b, output_config: { effort: 'high' } }), (up) => expect(up.reasoning?.effort).toBe('high')],
    [
      'output_config.format',
      (b) => ({ ...b, output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: {} } } } }),
      (up) => expect(up.responseFormat).toMatchObject({ type: 'json_schema', schema: { type: 'object', properties: {} } }),
    ],
    ['tools[].strict', (b) => withTool(b, { strict: true }), (up) => expect(up.tools.find((t) => t.name === 'Bash')?.strict).toBe(true)],
    [
      'tools[].defer_loading (not loaded by a tool search)',
      (b) => b,
      (up, w) => {
        expect(up.tools.map((t) => t.name)).not.toContain('DeferredToolPlaceholder');
        expect(w.join(' ')).not.toMatch(/defer/);
      },
    ],
    ['tools[].input_examples', (b) => withTool(b, { input_examples: [{ command: 'ls' }] }), (_up, w) => expect(w).toContain('tool input_examples')],
    ['tools[].eager_input_streaming', (b) => withTool(b, { eager_input_streaming: true }), (_up, w) => expect(w.join(' ')).not.toMatch(/eager/)],
  ];
  const upstreams = targets.filter(([p]) => p !== 'messages');

  describe.each(claudeCode)('$file', ({ body }) => {
    it.each(cases.flatMap(([field, vary, check]) => upstreams.map(([p, d]) => [field, p, d, vary, check] as const)))(
      '%s → %s (%s)',
      (_field, upstream, dialect, vary, check) => {
        const ctx = context('messages', upstream, dialect);
        const out = translatorFor('messages', upstream)!.request(vary(body), ctx);
        check(codecs[upstream].decodeRequest(out, context(upstream, upstream, dialect)), ctx.warnings);
        // Whatever happened to them, Anthropic's own fields never reach another upstream.
        expect(JSON.stringify(out)).not.toMatch(/"(context_management|output_config|defer_loading|input_examples|eager_input_streaming|anthropic_beta)"/);
      },
    );
  });
});
