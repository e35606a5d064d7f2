/**
 * JSON Schema ⇄ what Gemini takes. Gemini has two fields for a schema: `parameters` /
 * `responseSchema`, an OpenAPI 3.0 `Schema` object (upper-case types, `nullable`, no `$ref`, no
 * `additionalProperties`), and `parametersJsonSchema` / `responseJsonSchema`, which take JSON Schema
 * itself within a documented set of keywords. The encoder writes the JSON Schema fields, so unions,
 * references, tuples and closed objects keep their meaning; keywords outside that set are dropped
 * and each is listed in the warnings. The decoder reads both fields into JSON Schema.
 */
import type { TranslateContext } from '../../../translate/ir.js';
import { isObject, type Json, warn } from './read.js';

/** Keywords Gemini's JSON Schema fields take (and those its OpenAPI `Schema` has, which they accept too). */
const KEPT = new Set([
  '$id',
  '$defs',
  '$ref',
  '$anchor',
  'type',
  'format',
  'title',
  'description',
  'enum',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'anyOf',
  'oneOf',
  'properties',
  'additionalProperties',
  'required',
  'propertyOrdering',
  'minLength',
  'maxLength',
  'pattern',
  'minProperties',
  'maxProperties',
  'default',
  'nullable',
]);

/** Annotations for schema tooling, meaningless to the model: left out without a word (every Claude Code tool has `$schema`). */
const SILENT = new Set(['$schema', '$comment']);

/** Keywords whose value is one schema, a list of schemas, or a map of schemas. */
const ONE = new Set(['items', 'additionalProperties']);
const MANY = new Set(['prefixItems', 'anyOf', 'oneOf']);
const MAP = new Set(['properties', '$defs']);

/** `#/definitions/x` (draft 7) → `#/$defs/x`, as the definitions themselves move. */
const DEFINITIONS_REF = /^#\/definitions\//;

/**
 * A JSON Schema → the one Gemini's `parametersJsonSchema` / `responseJsonSchema` take. `what`
 * names the schema in warnings (`tool schema`, `response schema`).
 */
export function toGeminiSchema(schema: unknown, what: string, ctx: TranslateContext): unknown {
  if (Array.isArray(schema)) return schema.map((s) => toGeminiSchema(s, what, ctx));
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'definitions' && isObject(value)) out.$defs = { ...(isObject(out.$defs) ? out.$defs : {}), ...mapSchemas(value, what, ctx) };
    else if (key === 'const') out.enum = [value];
    else if (key === '$ref' && typeof value === 'string') out.$ref = value.replace(DEFINITIONS_REF, '#/$defs/');
    else if (SILENT.has(key)) continue;
    else if (!KEPT.has(key)) warn(ctx, `${what} keyword ${key}`);
    else if (MAP.has(key) && isObject(value)) out[key] = { ...(isObject(out[key]) ? out[key] : {}), ...mapSchemas(value, what, ctx) };
    else if ((ONE.has(key) || MANY.has(key)) && typeof value === 'object' && value !== null) out[key] = toGeminiSchema(value, what, ctx);
    else out[key] = value;
  }
  return out;
}

function mapSchemas(map: Json, what: string, ctx: TranslateContext): Json {
  const out: Json = {};
  for (const [name, s] of Object.entries(map)) out[name] = toGeminiSchema(s, what, ctx);
  return out;
}

/**
 * Gemini's OpenAPI `Schema` (`parameters`, `responseSchema`) → JSON Schema: lower-case types,
 * `nullable` as a `null` type; `propertyOrdering` (only Gemini orders properties) left out.
 */
export function fromOpenApiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(fromOpenApiSchema);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'propertyOrdering') continue;
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (MAP.has(key) && isObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromOpenApiSchema(v)]));
    else if (ONE.has(key) || MANY.has(key)) out[key] = fromOpenApiSchema(value);
    else out[key] = value;
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.anyOf)) out.anyOf = [...(out.anyOf as unknown[]), { type: 'null' }];
  }
  return out;
}
