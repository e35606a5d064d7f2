/**
 * A client request as a curl command to paste in a shell. Credentials were redacted
 * when the exchange was captured; they come back as `$MODEL_GATEWAY_KEY`, so the
 * command works with the key in the environment and never shows one.
 */
import type { BodyJson } from '../../log/exchange-json.js';

export interface CurlInput {
  /** `http://127.0.0.1:8787`, or a shell variable such as `$MODEL_GATEWAY_URL`. */
  readonly baseUrl: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly body?: BodyJson;
}

/** Headers curl sets itself, or that describe one transfer rather than the request. */
const TRANSPORT = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'accept-encoding', 'keep-alive', 'te', 'upgrade', 'expect']);
/** Redacted credentials, put back as the environment variable the gateway's own snippets use. */
const KEY_HEADERS: Readonly<Record<string, string>> = {
  authorization: 'Bearer $MODEL_GATEWAY_KEY',
  'x-api-key': '$MODEL_GATEWAY_KEY',
  'api-key': '$MODEL_GATEWAY_KEY',
};
const DROPPED = new Set(['cookie', 'proxy-authorization']);
const BODY_MARKER = 'MODEL_GATEWAY_BODY';

/** Single-quoted for POSIX shells: nothing inside is expanded. */
export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The URL, double-quoted when the base is a variable (`$MODEL_GATEWAY_URL`) so the shell fills it in. */
function urlArgument(baseUrl: string, path: string): string {
  if (!baseUrl.startsWith('$')) return shellQuote(`${baseUrl}${path}`);
  return `"${baseUrl}${path.replace(/["\\$`]/g, '\\$&')}"`;
}

export function curlCommand(input: CurlInput): string {
  const lines = [`curl -sS -X ${input.method} ${urlArgument(input.baseUrl, input.path)}`];
  let streaming = false;
  for (const [rawName, value] of Object.entries(input.headers)) {
    const name = rawName.toLowerCase();
    if (TRANSPORT.has(name) || DROPPED.has(name)) continue;
    const key = KEY_HEADERS[name];
    if (key !== undefined) {
      // Double quotes so the shell fills in the variable.
      lines.push(`-H "${name}: ${key}"`);
      continue;
    }
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v === undefined || v === null) continue;
      lines.push(`-H ${shellQuote(`${name}: ${String(v)}`)}`);
    }
  }
  const body = input.body;
  let text: string | undefined;
  if (body?.json !== undefined) {
    text = JSON.stringify(body.json);
    streaming = (body.json as { stream?: unknown }).stream === true;
  } else if (body?.text !== undefined) text = body.text;
  if (streaming) lines.splice(1, 0, '-N');
  const head = body?.truncated ? [`# The body was cut at capture (${body.bytes} bytes kept): this request is incomplete.`] : [];
  if (text === undefined || text === '') return [...head, lines.join(' \\\n  ')].join('\n');
  lines.push('--data-binary @-');
  return [...head, `${lines.join(' \\\n  ')} <<'${BODY_MARKER}'`, text, BODY_MARKER].join('\n');
}
