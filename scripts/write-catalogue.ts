/**
 * Writes src/cost/catalogue-data.ts, the compact price catalogue the gateway reads, from the installed
 * `@pydantic/genai-prices`. Run after updating the package: `npm run catalogue`.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOGUE_MODULE_PATH, compactCatalogue, packageProviders, packageVersion, renderCatalogueModule } from './catalogue-compact.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, CATALOGUE_MODULE_PATH);
const catalogue = compactCatalogue(await packageProviders(), await packageVersion());
const text = renderCatalogueModule(catalogue);
writeFileSync(target, text);
const models = catalogue.providers.reduce((n, p) => n + p.models.length, 0);
console.log(`wrote ${CATALOGUE_MODULE_PATH}: ${catalogue.providers.length} providers, ${models} models, ${(text.length / 1024).toFixed(0)} KB`);
