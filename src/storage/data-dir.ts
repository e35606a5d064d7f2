/**
 * Where the gateway keeps files of its own between runs (the install secret; later, usage
 * ledgers and history): `server.dataDir`, else `MODEL_GATEWAY_DATA_DIR`, else the platform's
 * per-user data folder.
 */
import { join, resolve } from 'node:path';

export interface DataDirSources {
  readonly configured?: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  readonly platform: NodeJS.Platform;
  readonly home: string;
}

export function dataDir({ configured, env, platform, home }: DataDirSources): string {
  if (configured) return resolve(configured);
  if (env.MODEL_GATEWAY_DATA_DIR) return resolve(env.MODEL_GATEWAY_DATA_DIR);
  switch (platform) {
    case 'win32':
      return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'model-gateway');
    case 'darwin':
      return join(home, 'Library', 'Application Support', 'model-gateway');
    default:
      // XDG: a relative XDG_DATA_HOME is to be ignored.
      return join(env.XDG_DATA_HOME?.startsWith('/') ? env.XDG_DATA_HOME : join(home, '.local', 'share'), 'model-gateway');
  }
}

/** The usage ledger's folder in the data folder: one file per month. */
export const ledgerDir = (data: string): string => join(data, 'usage');
