/**
 * Chat Completions: the fields that turn a feature on (see ../features.ts). Besides OpenAI's own,
 * the switches OpenAI-compatible servers take: OpenRouter's `reasoning`, `include_reasoning` and
 * `plugins`, DeepSeek's, GLM's and Kimi's `thinking`, Qwen's `enable_thinking`, and the chat template
 * switches vLLM and SGLang pass to the model.
 */
import { at, holdsImage, listed, namesTool, present, switchedOn, type FeatureField } from '../features.js';

export const CHAT_FEATURES: readonly FeatureField[] = [
  { feature: 'streaming', field: 'stream', when: 'is `true`', uses: (b) => b.stream === true },
  { feature: 'tools', field: 'tools', when: 'is a non-empty list', uses: (b) => listed(b.tools) },
  { feature: 'tools', field: 'functions', when: 'is a non-empty list (the older form of `tools`)', uses: (b) => listed(b.functions) },
  { feature: 'tools', field: 'tool_choice', when: 'names a tool or is `required`', uses: (b) => namesTool(b.tool_choice) },
  { feature: 'tools', field: 'function_call', when: 'names a function', uses: (b) => namesTool(b.function_call) },
  { feature: 'tools', field: 'web_search_options', when: 'is present (OpenAI runs a web search)', uses: (b) => present(b.web_search_options) },
  { feature: 'tools', field: 'plugins', when: 'is a non-empty list (OpenRouter runs web search and other plugins)', uses: (b) => listed(b.plugins) },
  {
    feature: 'images',
    field: 'messages[].content',
    when: 'holds an image part (`image_url`, or any protocol\'s image type) or a `file` whose `file_data` is an image data URL, in any message, tool messages included',
    uses: (b) => holdsImage(b.messages),
  },
  { feature: 'reasoning', field: 'reasoning_effort', when: 'is set and not `none`', uses: (b) => switchedOn(b.reasoning_effort) },
  { feature: 'reasoning', field: 'reasoning', when: 'is set and not off (OpenRouter and others)', uses: (b) => switchedOn(b.reasoning) },
  { feature: 'reasoning', field: 'include_reasoning', when: 'is set and not `false` (OpenRouter)', uses: (b) => switchedOn(b.include_reasoning) },
  { feature: 'reasoning', field: 'thinking', when: 'is set and not off (DeepSeek, GLM, Kimi: `{"type":"enabled"}`)', uses: (b) => switchedOn(b.thinking) },
  { feature: 'reasoning', field: 'enable_thinking', when: 'is set and not `false` (Qwen, DashScope)', uses: (b) => switchedOn(b.enable_thinking) },
  {
    feature: 'reasoning',
    field: 'chat_template_kwargs.enable_thinking',
    when: 'is set and not `false` (vLLM, SGLang)',
    uses: (b) => switchedOn(at(b, ['chat_template_kwargs', 'enable_thinking'])),
  },
  {
    feature: 'reasoning',
    field: 'chat_template_kwargs.thinking',
    when: 'is set and not `false` (vLLM, SGLang)',
    uses: (b) => switchedOn(at(b, ['chat_template_kwargs', 'thinking'])),
  },
];
