/**
 * The request bodies the benchmark sends, built from the repo's client
 * fixtures (test/fixtures/clients).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/clients/', import.meta.url));
const fixture = (name) => JSON.parse(readFileSync(`${FIXTURES}${name}`, 'utf8'));

/** A ~300 B OpenAI chat request (a short chat turn, as an SDK sends it). */
export function smallChat(model, stream) {
  return {
    model,
    messages: [
      { role: 'system', content: 'You are a concise assistant that answers in one short paragraph.' },
      { role: 'user', content: 'Explain in two sentences why keep-alive connections make an HTTP proxy faster.' },
    ],
    max_tokens: 256,
    temperature: 0.2,
    ...(stream ? { stream: true } : {}),
  };
}

/** A small Anthropic Messages request. */
export function smallMessages(model, stream) {
  return {
    model,
    max_tokens: 256,
    messages: [{ role: 'user', content: 'Explain in two sentences why keep-alive connections make an HTTP proxy faster.' }],
    ...(stream ? { stream: true } : {}),
  };
}

/** Deterministic filler prose with the odd quote, newline and non-ASCII character, as real prompts have. */
function filler(n, seed) {
  const words = [
    'gateway', 'stream', 'token', 'the', 'request', 'model', 'tool', 'result', 'a', 'file', 'line', 'of', 'code',
    'function', 'returns', '"quoted"', 'value', 'and', 'then', 'path/to/file.ts', 'error:', '{ ok: true }', 'ok',
  ];
  let out = '';
  let x = seed * 7919 + 17;
  let i = 0;
  while (out.length < n) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    // About one non-ASCII word in 200 (an arrow, an ellipsis, an accent), as in real prompts and tool output.
    out += x % 200 === 0 ? ['→', '…', 'café'][x % 3] : words[x % words.length];
    out += ++i % 13 === 0 ? '\n' : ' ';
  }
  return out.slice(0, n);
}

const PLACEHOLDER = /\[([^[\]"]+?), ([\d  ]+) chars\]/g;

/** Replaces the fixtures' `[system prompt, 7 028 chars]` placeholders with that many characters of filler. */
function expand(value, state) {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (_, _what, n) => filler(Number(n.replace(/[  ]/g, '')), state.seed++));
  }
  if (Array.isArray(value)) return value.map((v) => expand(v, state));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, state)]));
  }
  return value;
}

/**
 * A ~100 KB Claude Code request: the `messages-tool-result` fixture with its
 * placeholders expanded to their original lengths (system prompt, tool
 * descriptions, system reminders), then more turns of the same Bash tool loop
 * (assistant text + tool_use, user tool_result with a few KB of output) until
 * the compact JSON reaches `targetBytes`.
 */
export function claudeCodeBody(model, stream, targetBytes = 100 * 1024) {
  const fx = fixture('claude-code-2.1.330-messages-tool-result.json');
  const state = { seed: 1 };
  const body = expand(fx.body, state);
  body.model = model;
  body.stream = stream;
  const messages = body.messages;
  let turn = 0;
  while (Buffer.byteLength(JSON.stringify(body)) < targetBytes && turn < 200) {
    const id = `toolu_bench${String(turn).padStart(4, '0')}`;
    messages.push(
      {
        role: 'assistant',
        content: [
          { type: 'text', text: `Step ${turn + 1}: ${filler(160, state.seed++)}` },
          { type: 'tool_use', id, name: 'Bash', input: { command: `grep -rn "pattern${turn}" src/ | head -50`, description: 'Search the sources' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: filler(3500, state.seed++) }],
      },
    );
    turn++;
  }
  // The conversation must end on a user turn with text, as Claude Code's does.
  messages.push({ role: 'user', content: [{ type: 'text', text: 'Now summarise what you found.' }] });
  return body;
}

/** The headers Claude Code sends with that request (its own fixture), minus transport ones. */
export function claudeCodeHeaders(key) {
  const fx = fixture('claude-code-2.1.330-messages-tool-result.json');
  const out = {};
  for (const [k, v] of Object.entries(fx.headers)) {
    const lower = k.toLowerCase();
    if (['host', 'content-length', 'connection', 'accept-encoding', 'x-api-key'].includes(lower)) continue;
    out[lower] = v;
  }
  out['x-api-key'] = key;
  return out;
}

/** Claude Code's `/context` count_tokens request: `foo` plus its 12 tools, placeholders expanded. */
export function countTokensBody(model) {
  const fx = fixture('claude-code-2.1.330-count-tokens.json');
  const body = expand(fx.body, { seed: 99 });
  body.model = model;
  return body;
}

/** Writes `obj` as JSON to `dir/name` and gives its path (the load tools read bodies from files). */
export function writeBodyFile(dir, name, obj) {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(obj));
  return file;
}

/** The benchmark's request bodies, written once into `dir`: each scenario's by its name. */
export function writeBodyFiles(dir) {
  const write = (name, obj) => writeBodyFile(dir, name, obj);
  return {
    chat: write('chat.json', smallChat('bench-chat', false)),
    chatSlow: write('chat-slow.json', smallChat('bench-chat-slow', false)),
    chatStream: write('chat-stream.json', smallChat('bench-chat', true)),
    chatStreamMem: write('chat-stream-mem.json', smallChat('bench-chat-mem', true)),
    big: write('big.json', claudeCodeBody('claude-bench', false)),
    bigStream: write('big-stream.json', claudeCodeBody('claude-bench', true)),
    translated: write('translated-stream.json', smallMessages('bench-local', true)),
    countTokens: write('count-tokens.json', countTokensBody('bench-local')),
  };
}

/** The headers each kind of caller sends the gateway with `key`: an OpenAI SDK, an Anthropic SDK, Claude Code. */
export function callerHeaders(key) {
  return {
    bearer: { authorization: `Bearer ${key}`, 'user-agent': 'OpenAI/JS 6.49.0' },
    anthropic: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'user-agent': 'Anthropic/JS 0.137.0' },
    claudeCode: claudeCodeHeaders(key),
  };
}
