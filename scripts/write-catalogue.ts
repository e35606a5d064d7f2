/**
 * Writes src/cost/catalogue.json, the compact price catalogue the gateway reads, from the installed
 * `@pydantic/genai-prices`. Run after updating the package: `npm run catalogue`.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOGUE_PATH, compactCatalogue, packageProviders, packageVersion, renderCatalogue } from './catalogue-compact.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, CATALOGUE_PATH);
const catalogue = compactCatalogue(await packageProviders(), await packageVersion());
const text = renderCatalogue(catalogue);
writeFileSync(target, text);
const models = catalogue.providers.reduce((n, p) => n + p.models.length, 0);
console.log(`wrote ${CATALOGUE_PATH}: ${catalogue.providers.length} providers, ${models} models, ${(text.length / 1024).toFixed(0)} KB`);
