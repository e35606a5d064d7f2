/**
 * The `$schema` value `init` writes, so editors complete and check the new file. Preference:
 * 1. the project's own install (`./node_modules/model-gateway/...`): portable, safe to commit;
 * 2. the schema of the model-gateway that is running: relative when it lies inside the folder
 *    (a clone of this repository), else a `file://` URL (a global or npx install);
 * 3. none, when this copy ships no schema file (the standalone binary).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const INSTALLED_SCHEMA = './node_modules/model-gateway/schema/gateway.schema.json';

/** This package's schema file; `src/cli/` and `dist/cli/` both sit two levels below the package root. */
export function ownSchemaPath(): string | undefined {
  try {
    return fileURLToPath(new URL('../../schema/gateway.schema.json', import.meta.url));
  } catch {
    // Bundled without import.meta.url (the single-file binary): there is no package folder.
    return undefined;
  }
}

export function schemaRef(dir: string, own: string | undefined = ownSchemaPath()): string | undefined {
  if (existsSync(path.join(dir, ...INSTALLED_SCHEMA.split('/')))) return INSTALLED_SCHEMA;
  if (own === undefined || !existsSync(own)) return undefined;
  const relative = path.relative(dir, own);
  if (!relative.startsWith('..') && !path.isAbsolute(relative)) return `./${relative.split(path.sep).join('/')}`;
  return pathToFileURL(own).href;
}
