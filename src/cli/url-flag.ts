/** A gateway's base URL given on the command line (`--url`), as clients need it. */
import { ExitError } from '../errors.js';
import { printable } from '../log/terminal-text.js';

/** `--url` without a trailing slash or `/v1` (each client adds what it wants); exits 2 on anything but an http(s) URL. */
export function gatewayUrlFlag(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ExitError(`--url: "${printable(url)}" is not a URL (expected e.g. http://127.0.0.1:8787).`, 2);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ExitError(`--url: expected http:// or https://, got "${printable(url)}".`, 2);
  return url.replace(/\/+$/, '').replace(/\/v1$/, '');
}
