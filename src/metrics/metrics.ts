/**
 * The metrics of one gateway, when `metrics` is configured: the registry, the observer that feeds
 * it from each request's record, the hooks other parts report through, and where it is served.
 * Nothing of this exists with metrics off: no observer is registered, so requests do no work for it.
 */
import type { MetricsConfig } from '../config/types.js';
import type { Mount } from '../pipeline/context.js';
import { metricsListener, metricsMount, type MetricsListener, type Scrape } from './endpoint.js';
import type { MetricsHooks } from './hooks.js';
import { metricsObserver, type MetricsObserver, type Served } from './observe.js';
import { createMetricSet } from './registry.js';

export interface Metrics {
  readonly observer: MetricsObserver;
  readonly hooks: MetricsHooks;
  /** `/metrics` on the gateway's port; undefined when served on a listener of their own. */
  readonly mount: Mount | undefined;
  /** The text format, as a scrape gets it. */
  readonly scrape: Scrape;
  /** Starts the listener of their own, when configured; resolves with the URL they are served at. */
  listen(gatewayUrl: string): Promise<string>;
  close(): Promise<void>;
}

export function createMetrics(config: MetricsConfig, served: Served & { allowedHosts: readonly string[] }): Metrics {
  const m = createMetricSet(config.labels);
  const observer = metricsObserver(m, config.labels, served);
  const groupLabel = config.labels.includes('keyGroup');
  const scrape: Scrape = async () => {
    observer.refresh();
    return { text: await m.registry.metrics(), contentType: m.registry.contentType };
  };
  let listener: MetricsListener | undefined;
  const hooks: MetricsHooks = {
    budgetRefused(keyGroup) {
      if (groupLabel) m.budgetRefusals.inc({ key_group: keyGroup });
      else m.budgetRefusals.inc();
    },
    storeHealth(store, value) {
      m.storeUp.set({ store }, value);
    },
  };
  const { port, token } = config;
  return {
    observer,
    hooks,
    // The config rules make sure a token is there when no port is.
    mount: port === undefined && token !== undefined ? metricsMount(scrape, token) : undefined,
    scrape,
    async listen(gatewayUrl) {
      if (port === undefined) return `${gatewayUrl}/metrics`;
      listener = metricsListener(scrape, { token, allowedHosts: served.allowedHosts });
      return listener.listen(port, config.host);
    },
    async close() {
      await listener?.close();
    },
  };
}
