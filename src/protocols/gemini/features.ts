/**
 * Gemini: the fields that turn a feature on (see ../features.ts). `tools` covers Google's built-in
 * tools too (Google Search, code execution, URL context, file search, maps, computer use): they run
 * at the provider for the caller. Streaming is the endpoint (`:streamGenerateContent`), not a field:
 * inspection adds it (validate.ts). Each field in either spelling (fields.ts).
 */
import type { FeatureField } from '../features.js';
import { isObject, type Json } from '../json.js';
import { field, fieldAt, objectsAt } from './fields.js';

const listed = (v: unknown): boolean => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);

/** `functionCallingConfig.mode` values that leave calling a function to the model or forbid it. */
const FREE_MODES: ReadonlySet<string> = new Set(['AUTO', 'NONE', 'MODE_UNSPECIFIED']);

/** The calling config forces a call: a mode but AUTO and NONE (ANY, VALIDATED), or a list of allowed names. */
function forcesCall(config: unknown): boolean {
  if (!isObject(config)) return false;
  const mode = field(config, 'mode');
  const forced = mode !== undefined && mode !== null && !(typeof mode === 'string' && FREE_MODES.has(mode.toUpperCase()));
  return forced || listed(field(config, 'allowedFunctionNames'));
}

const IMAGE_MEDIA = /^\s*image\//i;

/** A part holds an image: inline data or a file of an image type, or (a function's answer) parts that do. */
function partHoldsImage(part: Json): boolean {
  for (const name of ['inlineData', 'fileData'] as const) {
    const mime = field(field(part, name), 'mimeType');
    if (typeof mime === 'string' && IMAGE_MEDIA.test(mime)) return true;
  }
  const response = field(part, 'functionResponse');
  return objectsAt(response, 'parts').some(partHoldsImage);
}

/** Some content (a `Content`, or a list of them) holds an image part. */
function holdsImage(content: unknown): boolean {
  if (Array.isArray(content)) return content.some(holdsImage);
  return objectsAt(content, 'parts').some(partHoldsImage);
}

/**
 * Whether `thinkingConfig` asks for thinking. Off is only: absent, null, or a config whose every
 * switch says so (`thinkingBudget: 0`, `includeThoughts: false`); `{}`, a level (even MINIMAL) and
 * a budget of -1 (dynamic) leave the model thinking.
 */
function thinkingOn(config: unknown): boolean {
  if (config === undefined || config === null) return false;
  if (!isObject(config)) return true;
  const budget = field(config, 'thinkingBudget');
  const include = field(config, 'includeThoughts');
  const level = field(config, 'thinkingLevel');
  let off = false;
  for (const [value, says] of [
    [budget, budget !== 0],
    [include, include !== false],
    [level, level !== 'THINKING_LEVEL_UNSPECIFIED'],
  ] as const) {
    if (value === undefined || value === null) continue;
    if (says) return true;
    off = true;
  }
  return !off;
}

export const GEMINI_FEATURES: readonly FeatureField[] = [
  {
    feature: 'tools',
    field: 'tools',
    when: 'is a non-empty list: `functionDeclarations` and Google\'s built-in tools (`googleSearch`, `codeExecution`, `urlContext`, …)',
    uses: (b) => listed(field(b, 'tools')),
  },
  {
    feature: 'tools',
    field: 'toolConfig.functionCallingConfig',
    when: 'has a `mode` but `AUTO` and `NONE` (`ANY`, `VALIDATED`), or `allowedFunctionNames`',
    uses: (b) => forcesCall(fieldAt(b, 'toolConfig.functionCallingConfig')),
  },
  {
    feature: 'images',
    field: 'contents[].parts',
    when: 'holds `inlineData` or `fileData` whose `mimeType` is `image/…`, also inside a `functionResponse`\'s parts',
    uses: (b) => holdsImage(field(b, 'contents')),
  },
  { feature: 'images', field: 'systemInstruction', when: 'holds an image part', uses: (b) => holdsImage(field(b, 'systemInstruction')) },
  {
    feature: 'reasoning',
    field: 'generationConfig.thinkingConfig',
    when: 'is set and not off (`thinkingBudget: 0`, `includeThoughts: false`): a level, a budget, `includeThoughts: true`',
    uses: (b) => thinkingOn(fieldAt(b, 'generationConfig.thinkingConfig')),
  },
];
