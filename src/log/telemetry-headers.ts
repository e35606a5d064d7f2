/**
 * The headers an SDK or a CLI sends about itself (`user-agent`, Stainless' `x-stainless-*`, the
 * beta lists, Google's `x-goog-api-client`, Codex's `originator` and `x-codex-*`), folded into one short line for
 * `--verbose`: a dozen lines of them per request would bury the headers that change what a request
 * does. `-vv` prints every header as it came. Values are hostile: each is cut, escaped, and only so
 * many are shown.
 */
import { printable } from './terminal-text.js';

/** Headers naming the client and its version, first on the line. */
const AGENTS = new Set(['user-agent', 'x-goog-api-client']);
/** Other headers that only describe the client (besides every `x-stainless-*` and `x-codex-*`), shown with their names. */
const TELEMETRY = new Set(['x-app', 'originator', 'anthropic-dangerous-direct-browser-access']);
/** Comma-separated lists of betas the client opted into. */
const BETAS = new Set(['anthropic-beta', 'openai-beta', 'x-codex-beta-features']);
const STAINLESS = 'x-stainless-';
/** Codex's own (its window id, a JSON blob of metadata about the turn); its session is the inspector's and stays a header. */
const CODEX = 'x-codex-';

/** Characters of one value shown (a user agent, a beta's name). */
const VALUE_CHARS = 60;
/** Betas named before the rest are counted, and other `x-stainless-*` headers shown. */
const BETAS_SHOWN = 3;
const OTHERS_SHOWN = 4;

export interface FoldedHeaders {
  /** The telemetry, as one line; undefined when the request sent none. */
  readonly telemetry: string | undefined;
  /** Every other header, in the order it came, its value as text. */
  readonly rest: readonly (readonly [string, string])[];
}

/** A header's value as one text (a repeated header's values joined as HTTP joins them). */
function headerText(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(', ') : String(value);
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const shown = (text: string) => printable(cut(text.trim(), VALUE_CHARS));
/** A JSON object of metadata says only how long it is: its first characters would say nothing. */
const blob = (text: string) => (text.trimStart().startsWith('{') ? `{…${text.length} chars}` : shown(text));

export function foldTelemetry(headers: Readonly<Record<string, unknown>>): FoldedHeaders {
  const rest: [string, string][] = [];
  const stainless = new Map<string, string>();
  const agents: string[] = [];
  const named: string[] = [];
  const codex: string[] = [];
  let codexCount = 0;
  const betas: string[] = [];
  let betaCount = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    const text = headerText(value);
    if (lower.startsWith(STAINLESS)) stainless.set(lower.slice(STAINLESS.length), text);
    else if (BETAS.has(lower)) {
      for (const beta of text.split(',')) {
        const b = beta.trim();
        if (b === '') continue;
        betaCount++;
        if (betas.length < BETAS_SHOWN) betas.push(shown(b));
      }
    } else if (lower.startsWith(CODEX)) {
      if (codexCount++ < OTHERS_SHOWN) codex.push(`${shown(lower.slice(CODEX.length))} ${blob(text)}`);
    } else if (AGENTS.has(lower)) agents.push(shown(text));
    else if (TELEMETRY.has(lower)) named.push(`${lower} ${shown(text)}`);
    else rest.push([name, text]);
  }
  const parts = [...agents, ...named, ...stainlessParts(stainless), ...codex];
  if (codexCount > OTHERS_SHOWN) parts.push(`+${codexCount - OTHERS_SHOWN} more`);
  if (betaCount > 0) parts.push(`betas ${betas.join(', ')}${betaCount > betas.length ? ` +${betaCount - betas.length}` : ''}`);
  return { telemetry: parts.length > 0 ? parts.join(' · ') : undefined, rest };
}

/** Stainless' headers in words: the SDK and its version, the runtime, the platform, the retry and timeout, then the rest by name. */
function stainlessParts(s: Map<string, string>): string[] {
  const out: string[] = [];
  const take = (key: string) => {
    const v = s.get(key);
    s.delete(key);
    return v === undefined || v.trim() === '' ? undefined : shown(v);
  };
  const joined = (...values: (string | undefined)[]) => values.filter((v) => v !== undefined).join(' ');
  const sdk = joined(take('lang'), take('package-version'));
  if (sdk) out.push(`sdk ${sdk}`);
  const runtime = joined(take('runtime'), take('runtime-version'));
  if (runtime) out.push(runtime);
  const platform = joined(take('os'), take('arch'));
  if (platform) out.push(platform);
  const retry = take('retry-count');
  if (retry !== undefined) out.push(`retry ${retry}`);
  const timeout = take('timeout');
  if (timeout !== undefined) out.push(`timeout ${timeout}s`);
  let others = 0;
  for (const [key, value] of s) {
    if (others++ < OTHERS_SHOWN) out.push(`${shown(key)} ${shown(value)}`);
  }
  if (others > OTHERS_SHOWN) out.push(`+${others - OTHERS_SHOWN} more`);
  return out;
}
