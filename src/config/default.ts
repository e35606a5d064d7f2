/**
 * The config used when no file is found: the echo model always, OpenAI and Anthropic when
 * their API keys are in the environment, and one key group guarded by `MODEL_GATEWAY_KEY`
 * or, failing that, a key generated for this run. Written as a `WrittenConfig` so it goes
 * through exactly the same validation and normalisation as a file.
 */
import type { Env } from './env.js';
import { generateKey } from './keys.js';
import type { WrittenConfig } from './schema.js';

export interface DefaultConfig {
  readonly written: WrittenConfig;
  /** Set when no `MODEL_GATEWAY_KEY` was given: the key to show once at start. */
  readonly generatedKey?: string;
}

// An empty variable is treated as unset here: `OPENAI_API_KEY= model-gateway` means "without OpenAI".
const isSet = (value: string | undefined): boolean => value !== undefined && value !== '';

export function defaultWrittenConfig(env: Env, newKey: () => string = generateKey): DefaultConfig {
  const providers: NonNullable<WrittenConfig['providers']> = { echo: { type: 'echo' } };
  const models: NonNullable<WrittenConfig['models']> = { echo: { provider: 'echo' } };

  if (isSet(env.OPENAI_API_KEY)) {
    providers.openai = { type: 'openai', apiKey: '${OPENAI_API_KEY}' };
    models['gpt-*'] = { provider: 'openai' };
    models['o*'] = { provider: 'openai' };
  }
  if (isSet(env.ANTHROPIC_API_KEY)) {
    providers.anthropic = { type: 'anthropic', apiKey: '${ANTHROPIC_API_KEY}' };
    models['claude-*'] = { provider: 'anthropic' };
  }

  const generatedKey = isSet(env.MODEL_GATEWAY_KEY) ? undefined : newKey();
  const written: WrittenConfig = {
    server: { host: '127.0.0.1', port: 8787 },
    providers,
    models,
    // A generated key is base64url, so it cannot contain a `${` reference.
    keyGroups: { local: { keys: [generatedKey ?? '${MODEL_GATEWAY_KEY}'], models: ['*'] } },
  };
  return generatedKey === undefined ? { written } : { written, generatedKey };
}
