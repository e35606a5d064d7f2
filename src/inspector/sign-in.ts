/**
 * Signing in with a gateway key, for a second browser or after a cleared cookie: a key of a key group
 * with `inspect: true` opens a session as the printed link does. The form is the 401 page itself (no
 * script), posted to `/_inspector/sign-in` as a urlencoded `key`. Wrong keys are throttled per client
 * address, so the form cannot be used to guess keys faster than the gateway's own endpoints allow.
 *
 * Login CSRF: another site's page could post the form with the attacker's own key, signing the
 * victim's browser in to a gateway whose page then shows the attacker what the victim sends. A browser
 * sends `Origin` with every POST, so the form is accepted only with the gateway's own origin there.
 */
import type { IncomingMessage } from 'node:http';
import { hashKey } from '../config/keys.js';
import type { Config } from '../config/types.js';
import { clientBlock, newAuthThrottle, noteFailure, waitMs } from '../auth/throttle.js';

/** Whether `key` (as a client sends it) is a key of a group with `inspect: true` in `config`. */
export function mayInspect(config: Config, key: string): boolean {
  const found = config.keys.get(hashKey(key));
  return found !== undefined && config.keyGroups.get(found.group)?.inspect === true;
}

/** The most of a sign-in body read: a key is far shorter. */
export const MAX_SIGN_IN_BYTES = 4096;
/** Wrong keys allowed per minute from one client address; past it that address's sign-ins wait for the minute to end. */
export const WRONG_KEYS_PER_MINUTE = 10;
/** Client addresses whose wrong keys are counted at once; past it the one counted longest ago is forgotten. */
export const MAX_SIGN_IN_ADDRESSES = 4096;

export const SIGN_IN_CSP = ["default-src 'none'", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'"].join('; ');

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The 401 page with the sign-in form; `note` says why the last try failed. */
export function signInPage(prefix: string, note?: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><title>Sign in: model-gateway inspector</title></head>
<body>
<h1>model-gateway inspector</h1>
<p>Open the link model-gateway printed when it started (it works once), or sign in with a gateway key of a key group allowed to inspect (<code>inspect: true</code>).</p>
${note ? `<p><strong>${escapeHtml(note)}</strong></p>\n` : ''}<form method="post" action="${escapeHtml(prefix)}/sign-in">
<label>Gateway key <input type="password" name="key" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>
</body>
</html>
`;
}

/** The posted key, read within MAX_SIGN_IN_BYTES; undefined when the body is larger, or has none. */
export function readSignIn(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (key: string | undefined) => {
      if (done) return;
      done = true;
      resolve(key);
    };
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_SIGN_IN_BYTES) {
        finish(undefined);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      const key = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('key');
      finish(key === null || key === '' ? undefined : key);
    });
    req.on('error', () => finish(undefined));
    req.on('close', () => finish(undefined));
  });
}

/**
 * Counts wrong keys per client address (IPv6 per /64) in a minute, as the gateway's own endpoints
 * count failed keys (`auth/throttle.ts`): a caller past the limit waits for its minute to end, and
 * cannot lock the form for everyone else. The table of addresses is bounded.
 */
export function wrongKeyThrottle(now: () => number = Date.now): { readonly blocked: (address: string | undefined) => boolean; readonly failed: (address: string | undefined) => void } {
  const throttle = newAuthThrottle(MAX_SIGN_IN_ADDRESSES);
  return {
    blocked: (address) => waitMs(throttle, clientBlock(address), WRONG_KEYS_PER_MINUTE, now()) > 0,
    failed: (address) => noteFailure(throttle, clientBlock(address), now()),
  };
}
