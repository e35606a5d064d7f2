/**
 * What the real-client suites (test/real-clients) share: where the pinned clients are installed
 * (scripts/install-real-clients.sh), their time limits, and the clean environment and scratch
 * folders each run gets, so that the user's own settings and keys never leak in.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where the clients are installed; unset, the suites are skipped. */
export const CLIENTS_DIR = process.env.MODEL_GATEWAY_REAL_CLIENTS_DIR;
export const CLIENT_TIMEOUT_MS = 60_000;
export const TEST_TIMEOUT_MS = CLIENT_TIMEOUT_MS + 15_000;

export const clientBin = (name: 'claude' | 'codex' | 'gemini'): string => join(CLIENTS_DIR ?? '', 'node_modules', '.bin', name);

/** Only PATH comes from the outside (the clients need node, their shell tools bash). */
export const clientEnv = (home: string): Record<string, string> => ({
  PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
  HOME: home,
  LANG: 'C.UTF-8',
  NO_COLOR: '1',
});

/** A maker of fresh, numbered folders under the scratch folder `root()` gives (made in a `beforeAll`). */
export function freshDirs(root: () => string): (name: string) => string {
  let made = 0;
  return (name) => {
    const path = join(root(), `${++made}-${name}`);
    mkdirSync(path, { recursive: true });
    return path;
  };
}

/** Claude Code's environment for the gateway at `url`, the key in `keyVar`: no telemetry, updates or other traffic. */
export const claudeCodeEnv = (home: string, url: string, key: string, keyVar: 'ANTHROPIC_API_KEY' | 'ANTHROPIC_AUTH_TOKEN' = 'ANTHROPIC_API_KEY'): Record<string, string> => ({
  ...clientEnv(home),
  ANTHROPIC_BASE_URL: url,
  [keyVar]: key,
  DISABLE_TELEMETRY: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
});

/** The lines of Codex's config.toml for `model` on a custom provider at the gateway's `url`, the key in MODEL_GATEWAY_API_KEY. */
export const codexProviderToml = (model: string, url: string, extra: readonly string[] = []): string =>
  [
    `model = "${model}"`,
    'model_provider = "model-gateway"',
    '',
    '[model_providers.model-gateway]',
    'name = "model-gateway"',
    `base_url = "${url}/v1"`,
    'env_key = "MODEL_GATEWAY_API_KEY"',
    'wire_api = "responses"',
    ...extra,
    '',
  ].join('\n');
