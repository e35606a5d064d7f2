/**
 * The JSON Schema editors use for `gateway.config.json` (via `$schema`), generated from the
 * zod schema. `scripts/write-schema.ts` writes it to `schema/gateway.schema.json`; a test
 * keeps the committed file equal to this output.
 */
import { z } from 'zod';
import { writtenConfigSchema } from './schema.js';

export const JSON_SCHEMA_PATH = 'schema/gateway.schema.json';

export function buildJsonSchema(): Record<string, unknown> {
  // `input`: describe what people write, so fields with defaults are optional and show the default.
  const schema = z.toJSONSchema(writtenConfigSchema, { io: 'input', target: 'draft-2020-12' });
  return { ...schema, title: 'model-gateway configuration' };
}

/** The exact text of the committed file. */
export function renderJsonSchema(): string {
  return `${JSON.stringify(buildJsonSchema(), null, 2)}\n`;
}
