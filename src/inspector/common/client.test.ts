import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { recogniseClient } from './client.js';

const FIXTURES = new URL('../../../test/fixtures/clients/', import.meta.url);

/** A recorded real request's headers, lower-cased as node:http delivers them. */
function fixtureHeaders(name: string): Record<string, string> {
  const { headers } = JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as { headers: Record<string, string> };
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

describe('recogniseClient', () => {
  it('recognises every recorded real client', () => {
    const seen = Object.fromEntries(
      readdirSync(FIXTURES)
        .filter((f) => f.endsWith('.json'))
        .map((f) => [f, recogniseClient(fixtureHeaders(f))?.label]),
    );
    expect(seen).toEqual({
      'anthropic-sdk-0.137.0-messages-create.json': 'Anthropic SDK (js) 0.137.0',
      'anthropic-sdk-1.12.0-messages-create.json': 'Anthropic SDK (js) 1.12.0',
      'claude-code-2.1.330-count-tokens.json': 'Claude Code 2.1.330',
      'claude-code-2.1.330-messages-first-turn.json': 'Claude Code 2.1.330',
      'claude-code-2.1.330-messages-tool-result.json': 'Claude Code 2.1.330',
      'codex-0.169.0-responses-first-turn-default-model.json': 'Codex 0.169.0 (exec)',
      'codex-0.169.0-responses-first-turn.json': 'Codex 0.169.0 (exec)',
      'codex-0.169.0-responses-function-call-output.json': 'Codex 0.169.0 (exec)',
      'openai-7.57.0-chat-completions-create.json': 'OpenAI SDK (js) 7.57.0',
      'openai-7.57.0-responses-create.json': 'OpenAI SDK (js) 7.57.0',
    });
  });

  it('tells the kinds apart', () => {
    expect(recogniseClient({ 'user-agent': 'claude-cli/2.1.330 (external, cli)' })).toEqual({ kind: 'claude-code', label: 'Claude Code 2.1.330', version: '2.1.330' });
    expect(recogniseClient({ 'user-agent': 'claude-code/2.1.330' })?.kind).toBe('claude-code');
    expect(recogniseClient({ 'user-agent': 'codex_cli_rs/0.50.0 (Mac OS 15.1.0; arm64) iTerm.app/3.5.10' })).toEqual({ kind: 'codex', label: 'Codex 0.50.0 (cli)', version: '0.50.0' });
    expect(recogniseClient({ 'user-agent': 'OpenAI/Python 1.99.1' })).toEqual({ kind: 'openai-sdk', label: 'OpenAI SDK (python) 1.99.1', version: '1.99.1' });
    expect(recogniseClient({ 'user-agent': 'AsyncOpenAI/Python 1.99.1' })?.label).toBe('OpenAI SDK (python) 1.99.1');
    expect(recogniseClient({ 'user-agent': 'Anthropic/Python 0.60.0' })?.label).toBe('Anthropic SDK (python) 0.60.0');
    expect(recogniseClient({ 'user-agent': 'AsyncAnthropic/Python 0.60.0' })?.kind).toBe('anthropic-sdk');
  });

  it('knows Codex by its originator header alone, and the SDKs by x-stainless-* when the user agent was replaced', () => {
    expect(recogniseClient({ originator: 'codex-tui', 'user-agent': 'something/1.0' })).toEqual({ kind: 'codex', label: 'Codex (tui)' });
    expect(recogniseClient({ 'user-agent': 'my-app/2.0', 'x-stainless-lang': 'python', 'x-stainless-package-version': '1.99.1' })?.label).toBe(
      'OpenAI SDK (python) 1.99.1',
    );
    expect(
      recogniseClient({ 'user-agent': 'my-app/2.0', 'x-stainless-lang': 'js', 'x-stainless-package-version': '0.60.0', 'anthropic-version': '2023-06-01' })?.label,
    ).toBe('Anthropic SDK (js) 0.60.0');
  });

  it('falls back to the first product token, and to nothing without a user agent', () => {
    expect(recogniseClient({ 'user-agent': 'curl/8.5.0' })).toEqual({ kind: 'other', label: 'curl/8.5.0', version: '8.5.0' });
    expect(recogniseClient({ 'user-agent': ['python-httpx/0.27.0'] })?.label).toBe('python-httpx/0.27.0');
    expect(recogniseClient({})).toBeUndefined();
  });
});
