/** Writes schema/gateway.schema.json from the config schema. Run: npx tsx scripts/write-schema.ts */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { JSON_SCHEMA_PATH, renderJsonSchema } from '../src/config/json-schema.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, JSON_SCHEMA_PATH);
mkdirSync(path.dirname(target), { recursive: true });
writeFileSync(target, renderJsonSchema());
console.log(`wrote ${path.relative(root, target)}`);
