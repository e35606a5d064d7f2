/**
 * Responses: the fields that turn a feature on (see ../features.ts), Codex's input items included.
 */
import { isObject, type Json } from '../json.js';
import { at, holdsImage, listed, namesTool, switchedOn, valuesOf, type FeatureField } from '../features.js';

const items = (b: Json): unknown[] => (Array.isArray(b.input) ? b.input : []);
const itemsOfType = (b: Json, types: readonly string[]): Json[] =>
  items(b).filter((i): i is Json => isObject(i) && typeof i.type === 'string' && types.includes(i.type));

export const RESPONSES_FEATURES: readonly FeatureField[] = [
  { feature: 'streaming', field: 'stream', when: 'is `true`', uses: (b) => b.stream === true },
  {
    feature: 'tools',
    field: 'tools',
    when: 'is a non-empty list: functions, and the built-in tools (web search, file search, code interpreter, computer use, MCP, image generation, shell, …)',
    uses: (b) => listed(b.tools),
  },
  { feature: 'tools', field: 'tool_choice', when: 'names a tool or is `required`', uses: (b) => namesTool(b.tool_choice) },
  {
    feature: 'tools',
    field: 'input[]',
    when: 'holds an `additional_tools` or `tool_search_output` item (tools declared in the input, as Codex does)',
    uses: (b) => itemsOfType(b, ['additional_tools', 'tool_search_output']).length > 0,
  },
  {
    feature: 'images',
    field: 'input[]',
    when: 'holds an `input_image` (or another image part), an `input_file` whose `file_data` or `file_url` is an image data URL, or a `computer_screenshot`, in message `content` or in a tool call\'s `output`',
    uses: (b) => holdsImage(b.input),
  },
  {
    feature: 'images',
    field: 'prompt.variables',
    when: 'has an image value (a stored prompt\'s `input_image` variable)',
    uses: (b) => holdsImage(valuesOf(at(b, ['prompt', 'variables']))),
  },
  { feature: 'reasoning', field: 'reasoning', when: 'is set and not off (`effort: "none"`)', uses: (b) => switchedOn(b.reasoning) },
  {
    feature: 'reasoning',
    field: 'input[]',
    when: 'holds a `configuration_update` item whose `reasoning.effort` is set and not `none` (Codex)',
    uses: (b) => itemsOfType(b, ['configuration_update']).some((i) => isObject(i.reasoning) && switchedOn(i.reasoning.effort)),
  },
];
