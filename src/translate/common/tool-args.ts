/**
 * Tool arguments: OpenAI carries them as a JSON string (possibly invalid),
 * Anthropic as an object. Custom (free-form) tools become a function with one
 * string parameter, `input`, on targets that only have function tools.
 */
import type { TranslateContext } from '../ir.js';
import { warn } from './warn.js';

/** The one parameter a custom tool gets when it must be expressed as a function. */
export const CUSTOM_INPUT_SCHEMA = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The raw input for this tool.' } },
  required: ['input'],
  additionalProperties: false,
} as const;

/**
 * JSON text → the object Anthropic requires. Invalid JSON or a non-object is
 * kept under `_raw` rather than lost, and noted.
 */
export function argumentsToObject(text: string, ctx: TranslateContext): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  warn(ctx, 'invalid tool-call JSON kept as _raw');
  return { _raw: text };
}

/** An object → JSON text, the inverse of `argumentsToObject` (a `_raw`-only object gives back its text). */
export function objectToArguments(input: unknown): string {
  if (typeof input === 'object' && input !== null) {
    const keys = Object.keys(input);
    const raw = (input as Record<string, unknown>)._raw;
    if (keys.length === 1 && typeof raw === 'string') return raw;
  }
  return JSON.stringify(input ?? {});
}

/** A custom tool's free-form input, as the arguments of its function stand-in. */
export const customInputToArguments = (input: string): string => JSON.stringify({ input });

/** The function stand-in's arguments back to the custom tool's free-form input. */
export function argumentsToCustomInput(text: string): string {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && typeof (value as { input?: unknown }).input === 'string') {
      return (value as { input: string }).input;
    }
  } catch {
    // not the stand-in's shape: pass the text through as the input
  }
  return text;
}
