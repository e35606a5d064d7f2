/**
 * The JSON Schema editors use for `gateway.config.json` (via `$schema`), generated from the
 * zod schema. `scripts/write-schema.ts` writes it to `schema/gateway.schema.json`; a test
 * keeps the committed file equal to this output, and schema-agreement.test.ts keeps its
 * verdicts equal to `parseConfig`'s.
 */
import { z } from './zod.js';
import { providerKind } from '../providers/kinds.js';
import { writtenConfigSchema } from './schema.js';
import { ENV_REFERENCE_PATTERN } from './env.js';

export const JSON_SCHEMA_PATH = 'schema/gateway.schema.json';

type JsonObject = Record<string, unknown>;

// What the gateway checks in code (a zod refinement, rules.ts) and a JSON Schema can state as well, so an
// editor flags it where the gateway would. ECMA-262 regexes without flags, as JSON Schema has them.
/** rules.ts `validIds`: provider ids and group names are non-empty and free of whitespace. */
const ID = '^\\S+$';
/** glob.ts `globProblem`: non-empty, no whitespace, none of [ ] { }, no `**`. */
const GLOB = '^(?!.*\\*\\*)[^\\s\\[\\]{}]+$';
/** keys.ts `isWellFormedKey`: a plain key, or "sha256:" (any case) and exactly 64 hex digits. */
const WELL_FORMED_KEY = '^(?![sS][hH][aA]256:)|^[sS][hH][aA]256:[0-9a-fA-F]{64}$';
/** schema.ts `baseUrl`: an absolute http(s) URL with a host. */
const HTTP_URL = '^[hH][tT][tT][pP][sS]?://[^/?#]';
/** state/redis-url.ts `isRedisUrl`: redis:// or rediss:// (any case), a host, no query or fragment. */
const REDIS_URL = '^[rR][eE][dD][iI][sS][sS]?://([^/?#@]*@)?(\\[[0-9a-fA-F:.]+\\]|[^/?#@:\\[\\]]+)(:[0-9]*)?(/[^?#]*)?$';
/** env.ts: a `${NAME}` reference (not the `$${NAME}` escape), whose value the schema cannot know. */
const ENV_REFERENCE = ENV_REFERENCE_PATTERN;

/** The node at `path`; it must exist, so a field the zod schema moves cannot silently lose its constraint. */
function at(root: JsonObject, path: readonly (string | number)[]): JsonObject {
  let node: unknown = root;
  for (const step of path) {
    node = (node as Record<string | number, unknown> | undefined)?.[step];
    if (typeof node !== 'object' || node === null) throw new Error(`JSON Schema has no node at ${path.join('.')}`);
  }
  return node as JsonObject;
}

function addRuleConstraints(schema: JsonObject): void {
  const section = (name: string) => at(schema, ['properties', name]);
  Object.assign(at(section('providers'), ['propertyNames']), { pattern: ID });
  Object.assign(at(section('keyGroups'), ['propertyNames']), { pattern: ID });
  Object.assign(at(section('models'), ['propertyNames']), { pattern: GLOB });

  // One entry per provider kind; each kind states its own rules (providers/<type>/kind.ts).
  const entries = at(section('providers'), ['additionalProperties', 'oneOf']) as unknown as JsonObject[];
  for (const entry of entries) {
    const type = at(entry, ['properties', 'type']).const;
    if (typeof type !== 'string') throw new Error('JSON Schema: a provider entry without a type');
    providerKind(type).jsonSchema?.(entry);
    const baseUrl = at(entry, ['properties', 'baseUrl']);
    // The gateway checks the URL after resolving `${NAME}` references, so a reference is accepted as written.
    delete baseUrl.format;
    delete baseUrl.pattern;
    baseUrl.anyOf = [{ format: 'uri', pattern: HTTP_URL }, { pattern: ENV_REFERENCE }];
  }

  const group = at(section('keyGroups'), ['additionalProperties', 'properties']);
  const key = at(group, ['keys', 'items', 'anyOf']);
  Object.assign(at(key, [0]), { pattern: WELL_FORMED_KEY });
  Object.assign(at(key, [1, 'properties', 'key']), { pattern: WELL_FORMED_KEY });
  Object.assign(at(group, ['models', 'items']), { pattern: GLOB });

  // Usually `${REDIS_URL}`: a reference is accepted as written, as for a base URL.
  at(section('state'), ['properties', 'redis']).anyOf = [{ pattern: REDIS_URL }, { pattern: ENV_REFERENCE }];
}

export function buildJsonSchema(): Record<string, unknown> {
  // `input`: describe what people write, so fields with defaults are optional and show the default.
  const schema = z.toJSONSchema(writtenConfigSchema, { io: 'input', target: 'draft-2020-12' }) as JsonObject;
  addRuleConstraints(schema);
  return { ...schema, title: 'model-gateway configuration' };
}

/** The exact text of the committed file. */
export function renderJsonSchema(): string {
  return `${JSON.stringify(buildJsonSchema(), null, 2)}\n`;
}
