/**
 * Label values a request's metrics carry, bounded by the config: a caller chooses its model name,
 * and a glob entry (`claude-*`) would let it mint a series per name it sends. Without `model` in
 * `metrics.labels` a name is shown as the config entry that matched it (the glob), and a name no
 * entry matches as `unknown`; key groups and keys are labels only when listed, and sessions never.
 */
import type { Config, MetricLabel } from '../config/types.js';
import type { RequestRecord } from '../log/record.js';
import { findModel } from '../routing/resolve-model.js';

/** The optional labels in the order they are appended, with their Prometheus names. */
export const OPTIONAL_LABELS = [
  ['keyGroup', 'key_group'],
  ['key', 'key'],
] as const satisfies readonly (readonly [MetricLabel, string])[];

/** The Prometheus names of the optional labels `listed` turns on, in their fixed order. */
export const optionalLabelNames = (listed: readonly MetricLabel[]): string[] =>
  OPTIONAL_LABELS.filter(([label]) => listed.includes(label)).map(([, name]) => name);

/** The values of the optional labels for a record, in `optionalLabelNames`' order. */
export function optionalLabelValues(listed: readonly MetricLabel[], record: RequestRecord): string[] {
  const out: string[] = [];
  for (const [label] of OPTIONAL_LABELS) {
    if (!listed.includes(label)) continue;
    out.push(label === 'keyGroup' ? (record.keyGroup ?? '') : (record.keyName ?? record.keyId ?? ''));
  }
  return out;
}

/** The request's model as requested (`gen_ai_request_model`) and as sent upstream (`gen_ai_response_model`). */
export function modelLabels(config: Config, record: RequestRecord, named: boolean): [string, string] {
  const { model, upstreamModel } = record;
  if (named) return [model ?? '', upstreamModel ?? ''];
  let requested = '';
  if (model !== undefined) {
    const entry = findModel(config, model);
    requested = entry === undefined ? 'unknown' : entry.isGlob ? entry.pattern : model;
  }
  let sent = '';
  if (upstreamModel !== undefined) {
    const served = record.servedBy ?? model;
    const entry = served === undefined ? undefined : findModel(config, served);
    // An exact entry, or a glob that names its upstream model, sends a name the config chose.
    sent = entry === undefined ? 'unknown' : !entry.isGlob || entry.upstreamModel !== undefined ? upstreamModel : entry.pattern;
  }
  return [requested, sent];
}
