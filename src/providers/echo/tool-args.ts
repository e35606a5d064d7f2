/**
 * Deterministic tool-call arguments from a tool's JSON Schema: only `required`
 * properties, each given the simplest value of its type. Strings get the reply text,
 * so a test can see what the "model" was asked.
 */
import { isRecord } from './conversation.js';

/** The arguments object for a tool whose parameters are `schema` (anything not an object schema gives `{}`). */
export function argumentsFromSchema(schema: unknown, text: string): Record<string, unknown> {
  return isRecord(schema) ? objectFor(schema, text) : {};
}

function objectFor(schema: Record<string, unknown>, text: string): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  const result: Record<string, unknown> = {};
  for (const name of required) result[name] = valueFor(properties[name], text);
  return result;
}

function valueFor(schema: unknown, text: string): unknown {
  if (!isRecord(schema)) return null;
  // `const` is a one-value enum (used for discriminators); honouring it keeps arguments valid.
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (typeOf(schema.type)) {
    case 'string':
      return text;
    case 'integer':
      return typeof schema.minimum === 'number' ? Math.ceil(schema.minimum) : 0;
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return objectFor(schema, text);
    default:
      return null;
  }
}

/** `type` may be a list (`["string", "null"]`): take its first non-null member. */
function typeOf(type: unknown): string | undefined {
  if (typeof type === 'string') return type;
  if (!Array.isArray(type)) return undefined;
  const named = type.filter((t): t is string => typeof t === 'string');
  return named.find((t) => t !== 'null') ?? named[0];
}
