/**
 * A client request as a curl command to paste in a shell. Credentials were redacted
 * when the exchange was captured; they come back as `$MODEL_GATEWAY_KEY`, so the
 * command works with the key in the environment and never shows one.
 *
 * Everything recorded is hostile: any key holder chooses the method, path, headers and
 * body, and `inspect FILE` shows whatever the file holds. So every recorded value goes into
 * the command as one single-quoted word (`shell.ts`), the body through printf's format
 * string, and what cannot be sent as recorded is left out or rewritten with a `#` line saying so.
 * The command holds only text that is safe to print (no control characters), so pasting it
 * types exactly what is read.
 */
import type { BodyJson } from '../../log/exchange-json.js';
import { printableJson } from '../../log/terminal-text.js';
import { printfCommand, shellComment, shellQuote } from './shell.js';
import { HTTP_TOKEN as TOKEN } from '../../protocols/http-token.js';

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
const KEY_HEADERS: ReadonlyMap<string, string> = new Map([
  ['authorization', 'Bearer $MODEL_GATEWAY_KEY'],
  ['x-api-key', '$MODEL_GATEWAY_KEY'],
  ['x-goog-api-key', '$MODEL_GATEWAY_KEY'],
  ['api-key', '$MODEL_GATEWAY_KEY'],
]);
const DROPPED = new Set(['cookie', 'proxy-authorization']);

/** A field value curl can send as recorded and a terminal shows as itself: visible ASCII and spaces. */
const FIELD_VALUE = /^[\x20-\x7e]*$/;
/** A base URL that is a shell variable, left for the shell to fill in. */
const VARIABLE = /^\$[A-Za-z_][A-Za-z0-9_]*$/;
/** A dot segment, which curl would resolve away unless told to send the path as is. */
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;

/** The path as a URL can carry it: rooted (so it cannot change the host) and with every other byte percent-encoded. */
function urlPath(path: string, notes: string[]): string {
  const rooted = path.startsWith('/') ? path : `/${path}`;
  const encoded = [...rooted]
    .map((c) => (/^[\x21-\x7e]$/.test(c) ? c : [...new TextEncoder().encode(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('')))
    .join('');
  if (encoded !== path) notes.push('The recorded path was not a plain rooted path: it is rooted and percent-encoded here.');
  return encoded;
}

/** The URL: a variable base stays a double-quoted variable for the shell to fill in, the path is single-quoted after it. */
function urlArgument(baseUrl: string, path: string): string {
  return VARIABLE.test(baseUrl) ? `"${baseUrl}"${shellQuote(path)}` : shellQuote(`${baseUrl}${path}`);
}

/** `-H` arguments, plus notes for what could not be sent as recorded. */
function headerArguments(headers: unknown, notes: string[]): string[] {
  if (typeof headers !== 'object' || headers === null) return [];
  const out: string[] = [];
  const unsendable: string[] = [];
  let badNames = 0;
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (TRANSPORT.has(name) || DROPPED.has(name)) continue;
    if (!TOKEN.test(name)) {
      badNames++;
      continue;
    }
    const key = KEY_HEADERS.get(name);
    if (key !== undefined) {
      // Double quotes so the shell fills in the variable; the name and the rest are our constants.
      out.push(`-H "${name}: ${key}"`);
      continue;
    }
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v === undefined || v === null) continue;
      const text = String(v);
      if (!FIELD_VALUE.test(text)) {
        unsendable.push(name);
        continue;
      }
      // `name:` with nothing after would make curl remove the header; `name;` sends it empty.
      out.push(`-H ${shellQuote(text === '' ? `${name};` : `${name}: ${text}`)}`);
    }
  }
  if (badNames > 0) notes.push(`Left out: ${badNames === 1 ? 'a header whose name is' : `${badNames} headers whose names are`} not an HTTP token.`);
  if (unsendable.length > 0) notes.push(`Left out: header values that are not visible ASCII (${[...new Set(unsendable)].join(', ')}).`);
  return out;
}

/** The command that writes the body to curl's stdin, or undefined when there is none. */
function bodyCommand(body: BodyJson | undefined): { command: string; streaming: boolean } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  if (body.json !== undefined) {
    // printableJson writes what is unsafe to print as JSON escapes: the same value, in safe text.
    const json = printableJson(body.json);
    const stream = typeof body.json === 'object' && body.json !== null && (body.json as { stream?: unknown }).stream === true;
    return { command: `printf '%s' ${shellQuote(json)}`, streaming: stream };
  }
  if (typeof body.text === 'string' && body.text !== '') return { command: printfCommand(body.text), streaming: false };
  return undefined;
}

export function curlCommand(input: CurlInput): string {
  const notes: string[] = [];
  const path = urlPath(String(input.path), notes);
  const body = bodyCommand(input.body);
  const first = ['curl -sS'];
  if (body?.streaming) first.push('-N');
  // curl reads `[]` and `{}` in a URL as a pattern of several URLs, and resolves dot segments.
  if (/[[\]{}]/.test(path)) first.push('-g');
  if (DOT_SEGMENT.test(path)) first.push('--path-as-is');
  const method = String(input.method);
  if (TOKEN.test(method)) first.push(`-X ${shellQuote(method)}`);
  else notes.push('The recorded method is not an HTTP method token: curl sends its own (GET, or POST with a body).');
  first.push(urlArgument(String(input.baseUrl), path));
  const args = [first.join(' '), ...headerArguments(input.headers, notes)];

  if (input.body?.truncated === true) {
    const kept = Number(input.body.bytes);
    notes.unshift(`The body was cut at capture (${Number.isSafeInteger(kept) ? kept : '?'} bytes kept): this request is incomplete.`);
  }
  const head = notes.map(shellComment);
  if (body === undefined) return [...head, args.join(' \\\n  ')].join('\n');
  args.push('--data-binary @-');
  return [...head, `${body.command} |`, `  ${args.join(' \\\n  ')}`].join('\n');
}
