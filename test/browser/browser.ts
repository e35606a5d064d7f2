/**
 * Headless Chromium for the inspector's browser tests, driven by playwright-core: one
 * browser per test file, shared by its tests, each test in a context of its own (fresh
 * cookies). Needs Debian's /usr/bin/chromium; without it the tests skip and say why.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { inspectorWiring } from '#src/cli/commands/serve.js';
import type { WrittenConfig } from '#src/config/schema.js';
import { createInspector, type Inspector, type InspectorOptions } from '#src/inspector/inspector.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, testConfig, type TestGateway } from '../helpers/start-gateway.js';

export const CHROMIUM = process.env.MODEL_GATEWAY_CHROMIUM ?? '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
/** The describe name of a browser suite: says why it skipped when it does. */
export const suiteName = (name: string) =>
  HAS_CHROMIUM ? name : `${name} (skipped: no Chromium at ${CHROMIUM}; install it with apt-get install chromium, or set MODEL_GATEWAY_CHROMIUM)`;

export const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
/** Set to write the README's screenshot (docs/inspector.png) too. */
export const DOCS_SCREENSHOT = process.env.MODEL_GATEWAY_DOCS_SCREENSHOT === '1' ? fileURLToPath(new URL('../../docs/inspector.png', import.meta.url)) : undefined;

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  // playwright adds --headless and gives every launch a fresh temporary --user-data-dir itself
  // (it refuses that flag in launch()); the rest keeps Chromium from reaching beyond loopback.
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface TestPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Uncaught page errors and console errors, to assert there were none. */
  readonly errors: string[];
}

export async function newPage(browser: Browser, options: { width?: number; dark?: boolean } = {}): Promise<TestPage> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 860 }, colorScheme: options.dark ? 'dark' : 'light' });
  const page = await context.newPage();
  // Well under vitest's test timeout, so a step that waits in vain names itself.
  page.setDefaultTimeout(5000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  return { context, page, errors };
}

export const artifact = (name: string) => `${ARTIFACTS}${name}`;

/** A browser, and a gateway with the inspector on in front of a fake upstream: what each browser suite starts with. */
export interface InspectedGateway {
  readonly browser: Browser;
  readonly upstream: FakeUpstream;
  readonly gw: TestGateway;
  readonly inspector: Inspector;
  close(): Promise<void>;
}

export async function startInspected(options: InspectorOptions = {}, extra: Partial<WrittenConfig> = {}): Promise<InspectedGateway> {
  const [browser, upstream] = await Promise.all([launchBrowser(), startFakeUpstream()]);
  const inspector = createInspector(options);
  // As serve wires it: with history, every request is captured; without, while a page is open.
  const gw = await startGateway(testConfig(upstream.url, extra), inspectorWiring(inspector));
  return {
    browser,
    upstream,
    gw,
    inspector,
    async close() {
      inspector.close();
      await Promise.all([browser.close(), gw.close(), upstream.close()]);
    },
  };
}
