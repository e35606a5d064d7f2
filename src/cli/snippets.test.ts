import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/parse.js';
import { runSnippets, shells } from '../../test/helpers/shell-recorder.js';
import { safeToPrint } from '../log/terminal-text.js';
import { env } from './commands/env.js';
import { claudeCodeEnv, claudeModelFor, clientSnippet, clientUrl, codexModelFor, exportLines, inlineEnv, shellQuote } from './snippets.js';

const input = { url: 'http://127.0.0.1:8787', key: { text: 'mgw-k' }, codexModel: 'gpt-5-codex' } as const;
const names = (client: Parameters<typeof clientSnippet>[0], extra = {}) => clientSnippet(client, { ...input, ...extra }).env.map((e) => e.name);

describe('client snippets', () => {
  it('Claude Code: base URL without /v1, bearer token, no model variables unless a model is named', () => {
    expect(exportLines(clientSnippet('claude-code', input).env)).toEqual([
      'export ANTHROPIC_BASE_URL=http://127.0.0.1:8787',
      'export ANTHROPIC_AUTH_TOKEN=mgw-k',
      'export DISABLE_TELEMETRY=1',
      'export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1',
    ]);
    expect(names('claude-code', { claudeModel: 'qwen2.5-coder:7b' })).toEqual([
      'ANTHROPIC_BASE_URL',
      'ANTHROPIC_AUTH_TOKEN',
      'ANTHROPIC_MODEL',
      'ANTHROPIC_SMALL_FAST_MODEL',
      'ANTHROPIC_DEFAULT_OPUS_MODEL',
      'ANTHROPIC_DEFAULT_SONNET_MODEL',
      'ANTHROPIC_DEFAULT_HAIKU_MODEL',
      'DISABLE_TELEMETRY',
      'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC',
    ]);
  });

  it('Codex: a Responses provider block reading the key from MODEL_GATEWAY_API_KEY', () => {
    const s = clientSnippet('codex', { ...input, codexModel: 'say "hi"' });
    expect(s.toml).toEqual([
      'model = "say \\"hi\\""',
      'model_provider = "model-gateway"',
      '',
      '[model_providers.model-gateway]',
      'name = "model-gateway"',
      'base_url = "http://127.0.0.1:8787/v1"',
      'env_key = "MODEL_GATEWAY_API_KEY"',
      'wire_api = "responses"',
    ]);
    expect(exportLines(s.env)).toEqual(['export MODEL_GATEWAY_API_KEY=mgw-k']);
  });

  it('SDKs: OpenAI with /v1, Anthropic without; shell has every variable once, and one Anthropic credential', () => {
    expect(inlineEnv(clientSnippet('openai', input).env)).toBe('OPENAI_BASE_URL=http://127.0.0.1:8787/v1 OPENAI_API_KEY=mgw-k');
    expect(inlineEnv(clientSnippet('anthropic', input).env)).toBe('ANTHROPIC_BASE_URL=http://127.0.0.1:8787 ANTHROPIC_API_KEY=mgw-k');
    const shell = names('shell');
    expect(new Set(shell).size).toBe(shell.length);
    expect(shell).toEqual(expect.arrayContaining(['ANTHROPIC_BASE_URL', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_BASE_URL', 'OPENAI_API_KEY', 'MODEL_GATEWAY_API_KEY']));
    expect(shell).not.toContain('ANTHROPIC_API_KEY');
  });

  it('refers to a variable instead of holding the key, and quotes what a shell would misread', () => {
    expect(exportLines(clientSnippet('openai', { ...input, key: { ref: 'MODEL_GATEWAY_KEY' } }).env)[1]).toBe('export OPENAI_API_KEY="$MODEL_GATEWAY_KEY"');
    expect(shellQuote('qwen2.5-coder:7b')).toBe('qwen2.5-coder:7b');
    expect(shellQuote("it's $HOME")).toBe(`'it'\\''s $HOME'`);
    expect(shellQuote('')).toBe("''");
  });

  it('clientUrl reaches wildcard listeners on loopback and brackets IPv6', () => {
    expect(clientUrl({ host: '0.0.0.0', port: 80 })).toBe('http://127.0.0.1:80');
    expect(clientUrl({ host: '::', port: 81 })).toBe('http://[::1]:81');
    expect(clientUrl({ host: 'localhost', port: 82 })).toBe('http://localhost:82');
  });

  it('maps Claude Code and Codex to a configured model only when their own names do not route', () => {
    const local = parseConfig({ providers: { e: { type: 'echo' } }, models: { 'qwen-coder': { provider: 'e' }, echo: { provider: 'e' } } }, { env: {} });
    expect(claudeModelFor(local)).toBe('qwen-coder');
    expect(codexModelFor(local)).toBe('qwen-coder');
    expect(claudeModelFor(local, 'echo')).toBe('echo');
    const cloud = parseConfig({ providers: { e: { type: 'echo' } }, models: { echo: { provider: 'e' }, 'claude-*': { provider: 'e' }, 'gpt-*': { provider: 'e' } } }, { env: {} });
    expect(claudeModelFor(cloud)).toBeUndefined();
    expect(codexModelFor(cloud)).toBe('gpt-5-codex');
  });
});

/** Model names, keys and URL tails that would run `canary` (or misbehave) if a shell read them unquoted. */
const HOSTILE = ["x'; canary; '", '$(canary)', '`canary`', 'a\ncanary', 'a\r\n$(canary)', '\x1b[201~\ncanary\n', '"; canary; "', 'é😀 \u202E', "'\\''", '*', '<your-key>', '\\x41'];

describe('shell text from config and command-line values', { timeout: 60_000 }, () => {
  const [bash, ...others] = shells();

  it.skipIf(bash === undefined)('`env shell`, evaluated: every variable holds exactly the value and nothing else runs', async () => {
    const cases = await Promise.all(
      HOSTILE.map(async (value) => {
        let out = '';
        const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write: () => true }, env: {}, cwd: '/', stopSignal: () => new Promise<string>(() => {}) };
        const url = `http://gw.test:1/a${value}`;
        await env('shell', { url, model: value, key: value }, io);
        expect(safeToPrint(out.replaceAll('\n', '')), out).toBe(true);
        return { value, url, snippet: `${out}curl "$ANTHROPIC_BASE_URL" "$ANTHROPIC_MODEL" "$ANTHROPIC_AUTH_TOKEN" "$OPENAI_BASE_URL" "$MODEL_GATEWAY_API_KEY"\n` };
      }),
    );
    // WHATWG URL parsing drops line breaks and tabs, so --url accepts one that still holds them: its text is what is quoted.
    expect(cases.map((c) => c.url).filter((u) => u.includes('\n')).length).toBeGreaterThan(0);
    for (const shell of [bash!, ...others]) {
      const runs = runSnippets(shell, cases.map((c) => c.snippet), {});
      cases.forEach(({ value, url, snippet }, i) => {
        const label = `${shell}: ${JSON.stringify(value)}\n${snippet}`;
        const run = runs[i]!;
        expect({ canary: run.canary, stderr: run.stderr, strayFiles: run.strayFiles, status: run.status }, label).toEqual({ canary: '', stderr: '', strayFiles: [], status: 0 });
        // dash has no $'…' (values unsafe to print are written so): there, only that nothing else ran.
        if (shell === bash || safeToPrint(value)) expect(run.argv, label).toEqual([url, value, value, `${url}/v1`, value]);
      });
    }
  });

  it.skipIf(bash === undefined)("the banner's one-line hints: the values reach the command exactly and nothing else runs", () => {
    const snippets = HOSTILE.map((value) => {
      const vars = claudeCodeEnv({ url: `http://gw.test:1/${value}`, key: { text: value }, claudeModel: value, codexModel: value });
      return `${inlineEnv(vars)} eval 'curl "$ANTHROPIC_BASE_URL" "$ANTHROPIC_AUTH_TOKEN" "$ANTHROPIC_MODEL"'\n`;
    });
    const runs = runSnippets(bash!, snippets, {});
    HOSTILE.forEach((value, i) => {
      const run = runs[i]!;
      expect({ canary: run.canary, stderr: run.stderr, strayFiles: run.strayFiles }, snippets[i]).toEqual({ canary: '', stderr: '', strayFiles: [] });
      expect(run.argv, snippets[i]).toEqual([`http://gw.test:1/${value}`, value, value]);
    });
  });
});
