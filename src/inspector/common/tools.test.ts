import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toolChanges, toolsOf } from './tools.js';

const codexBody = JSON.parse(readFileSync(new URL('../../../test/fixtures/clients/codex-0.169.0-responses-first-turn.json', import.meta.url), 'utf8')).body as unknown;

describe('toolsOf', () => {
  it("reads each protocol's tool shapes", () => {
    expect(toolsOf({ tools: [{ type: 'function', function: { name: 'f' } }, { type: 'custom', custom: { name: 'c' } }] }, 'chat')).toEqual([
      { name: 'f', kind: 'function' },
      { name: 'c', kind: 'custom' },
    ]);
    expect(toolsOf({ tools: [{ name: 'f', input_schema: {} }, { type: 'web_search_20250305', name: 'web_search' }] }, 'messages')).toEqual([
      { name: 'f', kind: 'function' },
      { name: 'web_search', kind: 'hosted' },
    ]);
    const codex = toolsOf(codexBody, 'responses');
    expect(codex.find((t) => t.kind === 'namespace')).toEqual({
      name: 'multi_agent_v1',
      kind: 'namespace',
      children: ['close_agent', 'resume_agent', 'send_input', 'spawn_agent', 'wait_agent'],
    });
    expect(codex.find((t) => t.kind === 'hosted')).toEqual({ name: 'web_search', kind: 'hosted' });
    expect(toolsOf({}, 'chat')).toEqual([]);
  });
});

describe('toolChanges', () => {
  it('reports Codex tools sent to a Messages provider: namespaces flattened, custom converted, hosted dropped', () => {
    const client = toolsOf(
      {
        tools: [
          { type: 'function', name: 'exec_command' },
          { type: 'custom', name: 'apply_patch' },
          { type: 'namespace', name: 'mcp', tools: [{ name: 'read' }, { name: 'gone' }] },
          { type: 'web_search' },
        ],
      },
      'responses',
    );
    const upstream = toolsOf({ tools: [{ name: 'exec_command', input_schema: {} }, { name: 'apply_patch', input_schema: {} }, { name: 'mcp__read', input_schema: {} }] }, 'messages');
    expect(toolChanges(client, upstream)).toEqual({
      kept: ['exec_command'],
      converted: [{ name: 'apply_patch', from: 'custom', to: 'function' }],
      flattened: [{ from: 'mcp.read', to: 'mcp__read' }],
      dropped: [
        { name: 'mcp', kind: 'namespace', children: ['gone'] },
        { name: 'web_search', kind: 'hosted' },
      ],
      added: [],
    });
  });

  it('says when a tool changed kind, and when upstream has a tool the client did not send', () => {
    const client = toolsOf({ tools: [{ type: 'custom', name: 'apply_patch' }] }, 'responses');
    const upstream = toolsOf({ tools: [{ type: 'function', function: { name: 'apply_patch' } }, { type: 'function', function: { name: 'extra' } }] }, 'chat');
    expect(toolChanges(client, upstream)).toMatchObject({ kept: [], converted: [{ name: 'apply_patch', from: 'custom', to: 'function' }], added: ['extra'] });
  });
});
