/**
 * What other parts of the gateway report to the metrics beyond a request's record: refusals by a
 * key group's budget, and the health of a shared store. Handed to them as `HandlerDeps.metrics`;
 * with metrics off they get `noMetrics`, whose calls do nothing.
 */
export interface MetricsHooks {
  /** A request refused because its key group spent its budget. */
  budgetRefused(keyGroup: string): void;
  /** A shared store's health as a gauge value: 1 reachable, 0 not (`store` names it: "redis"). */
  storeHealth(store: string, value: number): void;
}

export const noMetrics: MetricsHooks = {
  budgetRefused() {},
  storeHealth() {},
};
