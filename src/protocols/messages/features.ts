/**
 * Anthropic Messages: the fields that turn a feature on (see ../features.ts). `tools` covers
 * Anthropic's server tools too (web search and fetch, code execution, bash, text editor, computer
 * use, memory, tool search): they run at the provider for the caller.
 */
import { at, holdsImage, listed, namesTool, switchedOn, type FeatureField } from '../features.js';

export const MESSAGES_FEATURES: readonly FeatureField[] = [
  { feature: 'streaming', field: 'stream', when: 'is `true`', uses: (b) => b.stream === true },
  {
    feature: 'tools',
    field: 'tools',
    when: 'is a non-empty list: custom tools and server tools (`web_search_*`, `web_fetch_*`, `code_execution_*`, `bash_*`, `text_editor_*`, `computer_*`, …)',
    uses: (b) => listed(b.tools),
  },
  { feature: 'tools', field: 'tool_choice', when: 'is `any`, `tool` or another type but `auto` and `none`', uses: (b) => namesTool(b.tool_choice) },
  { feature: 'tools', field: 'mcp_servers', when: 'is a non-empty list (the MCP connector)', uses: (b) => listed(b.mcp_servers) },
  {
    feature: 'images',
    field: 'messages[].content',
    when: 'holds an `image` block, or a block whose `source.media_type` is `image/…`, at any depth: in `tool_result` content, in a `document` whose source is `content`',
    uses: (b) => holdsImage(b.messages),
  },
  { feature: 'images', field: 'system', when: 'holds an image block', uses: (b) => holdsImage(b.system) },
  { feature: 'reasoning', field: 'thinking', when: 'is set and not off (`{"type":"disabled"}`): `enabled`, `adaptive`, …', uses: (b) => switchedOn(b.thinking) },
  {
    feature: 'reasoning',
    field: 'output_config.effort',
    when: 'is set (the gateway turns an effort into a reasoning request when it translates)',
    uses: (b) => switchedOn(at(b, ['output_config', 'effort'])),
  },
];
