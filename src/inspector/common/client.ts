/**
 * Which client sent a request, from its headers: Claude Code, Codex, the OpenAI and
 * Anthropic SDKs (any language), else the user agent's first product token.
 * Header names are expected lower-case, as node:http delivers them.
 */
import type { ClientInfo } from './types.js';

export type HeaderBag = Readonly<Record<string, unknown>>;

export function header(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name];
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  return undefined;
}

/** `claude-cli/2.1.330 (external, cli)`; model discovery sends `claude-code/2.1.330`. */
const CLAUDE_CODE = /^claude-(?:cli|code)\/(\S+)/;
/** `codex_exec/0.169.0 (Debian …)`, `codex_cli_rs/0.50.0 …`, `codex-tui/…`. */
const CODEX = /^(codex[_-][a-z_]+)\/(\S+)/;
/** Stainless-generated SDKs: `OpenAI/JS 7.57.0`, `AsyncOpenAI/Python 1.99.0`, `Anthropic/Python 0.60.0`. */
const SDK = /^(?:Async)?(OpenAI|Anthropic)\/(\w+) (\S+)/;

const LANGUAGES: Readonly<Record<string, string>> = { js: 'js', javascript: 'js', python: 'python', go: 'go', java: 'java', kotlin: 'kotlin', ruby: 'ruby' };

/** Codex's `originator` (and user-agent product) names the front end: exec, TUI, the Rust CLI. */
function codexMode(originator: string): string | undefined {
  const m = /^codex[_-](.+)$/.exec(originator);
  if (!m?.[1]) return undefined;
  return m[1] === 'cli_rs' ? 'cli' : m[1].replace(/_/g, ' ');
}

export function recogniseClient(headers: HeaderBag): ClientInfo | undefined {
  const ua = header(headers, 'user-agent') ?? '';
  const originator = header(headers, 'originator');

  const claude = CLAUDE_CODE.exec(ua);
  if (claude?.[1]) return { kind: 'claude-code', label: `Claude Code ${claude[1]}`, version: claude[1] };

  const codex = CODEX.exec(ua);
  if (codex || originator?.startsWith('codex')) {
    const version = codex?.[2];
    const mode = codexMode(originator ?? codex?.[1] ?? '');
    const label = `Codex${version ? ` ${version}` : ''}${mode ? ` (${mode})` : ''}`;
    return { kind: 'codex', label, ...(version ? { version } : {}) };
  }

  const sdk = SDK.exec(ua);
  const stainlessLang = header(headers, 'x-stainless-lang');
  if (sdk?.[1] && sdk[2] && sdk[3]) {
    const vendor = sdk[1] === 'OpenAI' ? 'openai' : 'anthropic';
    const lang = LANGUAGES[sdk[2].toLowerCase()] ?? sdk[2].toLowerCase();
    return sdkClient(vendor, lang, sdk[3]);
  }
  if (stainlessLang) {
    // A Stainless SDK with its user agent replaced: the vendor shows in the headers it sends.
    const vendor = header(headers, 'anthropic-version') !== undefined ? 'anthropic' : 'openai';
    const version = header(headers, 'x-stainless-package-version');
    return sdkClient(vendor, LANGUAGES[stainlessLang.toLowerCase()] ?? stainlessLang, version);
  }

  const product = ua.split(' ')[0];
  if (!product) return undefined;
  const slash = product.indexOf('/');
  const version = slash > 0 ? product.slice(slash + 1) : undefined;
  return { kind: 'other', label: product.length > 40 ? `${product.slice(0, 40)}…` : product, ...(version ? { version } : {}) };
}

function sdkClient(vendor: 'openai' | 'anthropic', lang: string, version: string | undefined): ClientInfo {
  const name = vendor === 'openai' ? 'OpenAI SDK' : 'Anthropic SDK';
  return {
    kind: vendor === 'openai' ? 'openai-sdk' : 'anthropic-sdk',
    label: `${name} (${lang})${version ? ` ${version}` : ''}`,
    ...(version ? { version } : {}),
  };
}
