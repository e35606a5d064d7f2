/**
 * Starts the real gateway on 127.0.0.1 port 0 with a config written as a user
 * would write it, capturing its log lines (colour off).
 */
import { Chalk } from 'chalk';
import { parseConfig } from '#src/config/parse.js';
import { loadRedisClient } from '#src/state/redis-client.js';
import type { WrittenConfig } from '#src/config/schema.js';
import type { Verbosity } from '#src/log/detail.js';
import { createLogger } from '#src/log/logger.js';
import type { ProviderDeps } from '#src/providers/registry.js';
import { createGateway, type Gateway, type GatewayOptions } from '#src/server/gateway.js';

export interface TestGateway {
  readonly url: string;
  readonly gateway: Gateway;
  /** Everything the gateway printed, one entry per write (what was still waiting for its batch included). */
  readonly output: string[];
  /** The request log lines so far. */
  lines(): string[];
  close(): Promise<void>;
}

export interface StartOptions {
  readonly env?: Record<string, string | undefined>;
  /** As `serve` prints: true or 1 is `--verbose`, 2 is `-vv`. */
  readonly verbose?: boolean | Verbosity;
  readonly logFile?: string;
  readonly logBodies?: boolean;
  readonly providerDeps?: ProviderDeps;
  /** Runs after the gateway is built and before it listens (server settings that only apply at listen). */
  readonly beforeListen?: (gateway: Gateway) => void;
  /** Passed to createGateway as they are (the inspector's tests give its observer and mount). */
  readonly captureLimit?: number;
  readonly captureWhile?: GatewayOptions['captureWhile'];
  readonly observers?: GatewayOptions['observers'];
  readonly mounts?: GatewayOptions['mounts'];
  readonly limitStore?: GatewayOptions['limitStore'];
  readonly budgetStore?: GatewayOptions['budgetStore'];
  readonly ledgerDir?: GatewayOptions['ledgerDir'];
  readonly tracer?: GatewayOptions['tracer'];
  readonly metrics?: GatewayOptions['metrics'];
}

export async function startGateway(written: WrittenConfig, options: StartOptions = {}): Promise<TestGateway> {
  const config = parseConfig(written, { env: options.env ?? {} });
  // As loadConfig does for `serve`.
  if (config.state) await loadRedisClient();
  const output: string[] = [];
  const logger = createLogger({
    out: { write: (s: string) => output.push(s) },
    chalk: new Chalk({ level: 0 }),
    verbose: options.verbose ?? false,
    ...(options.logFile ? { logFile: options.logFile } : {}),
    ...(options.logBodies !== undefined ? { logBodies: options.logBodies } : {}),
  });
  const gateway = createGateway({
    config,
    logger,
    ...(options.providerDeps ? { providerDeps: options.providerDeps } : {}),
    ...(options.captureLimit !== undefined ? { captureLimit: options.captureLimit } : {}),
    ...(options.captureWhile ? { captureWhile: options.captureWhile } : {}),
    ...(options.observers ? { observers: options.observers } : {}),
    ...(options.mounts ? { mounts: options.mounts } : {}),
    ...(options.limitStore ? { limitStore: options.limitStore } : {}),
    ...(options.budgetStore ? { budgetStore: options.budgetStore } : {}),
    ...(options.ledgerDir ? { ledgerDir: options.ledgerDir } : {}),
    ...(options.tracer ? { tracer: options.tracer } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  options.beforeListen?.(gateway);
  const url = await gateway.listen(0, '127.0.0.1');
  return {
    url,
    gateway,
    // Lines are printed in batches; a test reads them as soon as the response has closed.
    get output() {
      logger.flush();
      return output;
    },
    lines: () => {
      logger.flush();
      return output.join('').split('\n').filter((l) => /^\d\d:\d\d:\d\d /.test(l));
    },
    close: () => gateway.close(1000),
  };
}

/** Waits until `count` request lines were logged (the line is written when the response closes). */
export async function waitForLines(gw: TestGateway, count: number, timeoutMs = 5000): Promise<string[]> {
  const until = Date.now() + timeoutMs;
  while (gw.lines().length < count) {
    if (Date.now() > until) throw new Error(`expected ${count} log lines, got: ${JSON.stringify(gw.lines())}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return gw.lines();
}

export const GATEWAY_KEY = 'gw-test-key-0123456789abcdef';
export const CI_KEY = 'gw-ci-key-fedcba9876543210';
export const PROVIDER_OPENAI_KEY = 'sk-provider-openai-secret-1234';
export const PROVIDER_ANTHROPIC_KEY = 'sk-ant-provider-secret-5678';

/** A config with every provider style pointed at one fake upstream. */
/** The config with every provider's retries off: for tests of how one failure reaches the client. */
export function withoutRetries(config: WrittenConfig): WrittenConfig {
  return { ...config, providers: Object.fromEntries(Object.entries(config.providers).map(([id, p]) => [id, { ...p, retries: 0 }])) };
}

export function testConfig(upstreamUrl: string, extra: Partial<WrittenConfig> = {}): WrittenConfig {
  return {
    providers: {
      openai: { type: 'openai', baseUrl: `${upstreamUrl}/v1`, apiKey: PROVIDER_OPENAI_KEY },
      anthropic: { type: 'anthropic', baseUrl: upstreamUrl, apiKey: PROVIDER_ANTHROPIC_KEY },
      local: { type: 'openai-compatible', baseUrl: `${upstreamUrl}/v1` },
      echo: { type: 'echo' },
    },
    models: {
      'gpt-test': { provider: 'openai', upstreamModel: 'gpt-upstream' },
      'claude-test': { provider: 'anthropic', upstreamModel: 'claude-upstream' },
      'local-chat': { provider: 'local', upstreamModel: 'qwen2.5-coder:7b', features: ['tools', 'streaming'] },
      'no-stream': { provider: 'openai', features: ['tools'] },
      'chat-only': { provider: 'openai', protocols: ['chat'] },
      'claude-*': { provider: 'anthropic' },
      'claude-basic-*': { provider: 'anthropic', features: ['tools', 'streaming'] },
      echo: { provider: 'echo' },
    },
    keyGroups: {
      dev: { keys: [GATEWAY_KEY], models: ['*'] },
      ci: { keys: [{ name: 'ci-bot', key: CI_KEY }], models: ['gpt-test', 'local-*'], protocols: ['chat'], features: ['streaming'] },
    },
    ...extra,
  } as WrittenConfig;
}
