/**
 * The traffic inspector: a request observer that keeps the last exchanges in memory,
 * and a page with its data API mounted at /_inspector on the gateway's port (or on a
 * server of its own for `model-gateway inspect FILE`).
 *
 *   GET /_inspector/?token=…              one-time link: sets the cookie, redirects to the page
 *   POST /_inspector/sign-in              key=… of a group with `inspect: true` (when `signIn` is given): the same
 *   POST /_inspector/link                 a fresh one-time link, for the local user holding the link key (link-key.ts)
 *   GET /_inspector/                      the page (inspector.js, inspector.css beside it)
 *   GET /_inspector/api/exchanges         the list, newest first
 *   GET /_inspector/api/exchanges/:id     one exchange in full
 *   GET /_inspector/api/events            rows as they start and end (SSE)
 *   GET /_inspector/api/search?q=…        ids of the exchanges whose bodies hold every word of q
 *
 * Everything but the token link answers 401 without the cookie.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exchangeJson, type ExchangeJson } from '../log/exchange-json.js';
import type { Mount, RequestObserver } from '../pipeline/context.js';
import type { RequestRecord } from '../log/record.js';
import { loadAssets, type PageAssets } from './assets.js';
import { cookieName, createAuth, readCookie, sessionCookie, type AuthOptions } from './auth.js';
import { CONTENT_SECURITY_POLICY, PAGE_HTML } from './page-html.js';
import { conversationOf } from './conversation.js';
import { queryWords, searchBodies } from './search.js';
import { LINK_PATH, linkKeyMatcher } from './link-key.js';
import { isLoopback, isOwnOrigin } from '../server/host-guard.js';
import { readSignIn, SIGN_IN_CSP, signInPage, wrongKeyThrottle } from './sign-in.js';
import { createPushHub, type PushOptions } from './push.js';
import { createStore, recordOf, summaryOf, type StoreEntry, type StoreOptions } from './store.js';
import { bodyRate } from './body-rate.js';
import type { ExchangeDetail, ExchangeList, SkippedLines } from './common/types.js';

export const INSPECTOR_PREFIX = '/_inspector';
export const DEFAULT_BODIES_PER_SECOND = 5;

export interface InspectorOptions extends StoreOptions, AuthOptions, PushOptions {
  /** `recording`: a file's exchanges, no live traffic. */
  readonly mode?: 'live' | 'recording';
  /** The recording's name, shown in the page. */
  readonly source?: string;
  /** How long after the last page went away exchanges are still captured whole (a reload reconnects). */
  readonly watchGraceMs?: number;
  /**
   * Whether a gateway key may sign in (a key of a group with `inspect: true`). Absent: only the
   * printed link signs in.
   */
  readonly signIn?: (key: string) => boolean;
  /**
   * Keep the recent past while no page is open (`inspector.history`, default true): every request
   * is kept, so a page opened later shows it. False: only while a page is open.
   */
  readonly history?: boolean;
  /** With history, how many requests a second are kept whole while no page is open; the rest keep their row (body-rate.ts). */
  readonly bodiesPerSecond?: number;
  /** How many of them at once (default: `burstFor` in body-rate.ts). */
  readonly bodiesBurst?: number;
  /**
   * The key that gets a fresh one-time link from `POST /_inspector/link` over loopback (`link-key.ts`).
   * Absent: no link but the printed one.
   */
  readonly linkKey?: string;
}

/** Long enough for a page reload or EventSource's reconnect (3 s) to keep capturing. */
const DEFAULT_WATCH_GRACE_MS = 15_000;

export interface Inspector {
  /** Give to createGateway's `observers`. */
  readonly observer: RequestObserver;
  /** Give to createGateway's `mounts`. */
  readonly mount: Mount;
  /**
   * A request starting now is to be captured whole: a page is open (or one left less than
   * `watchGraceMs` ago), or, with history, the request may be kept whole (`bodiesPerSecond`).
   * Give to createGateway's `captureWhile`.
   */
  readonly capturing: boolean;
  /** Every request is kept, whole or as its row (`history`). */
  readonly history: boolean;
  /** A new one-time link to the page on the server at `baseUrl`. */
  link(baseUrl: string): string;
  /** Adds a recorded exchange (recording mode). `bytes` is its size as read. */
  addRecorded(json: ExchangeJson, bytes: number): void;
  /** Rows from before a restart, oldest first (`from-ledger.ts`), added before any request of this run. */
  addRestored(facts: readonly ExchangeJson[]): void;
  /** The recording's lines that were not exchanges (recording mode), for the page to say so. */
  skippedLines(skipped: SkippedLines): void;
  /** Exchanges held now. */
  readonly size: number;
  /** Ends the open event streams, so the server can close without waiting for them. */
  close(): void;
}

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;

const NOT_SIGNED_IN =
  'Open the inspector through the link model-gateway printed when it started (it carries a one-time token).\n' +
  'Each link works once, and a session ends when unused for a while; model-gateway status --link prints a new one,\n' +
  'or sign in at /_inspector/ with a key of a key group that has inspect: true.\n';

export function createInspector(options: InspectorOptions = {}): Inspector {
  const mode = options.mode ?? 'live';
  const store = createStore(options);
  const auth = createAuth(options);
  const hub = createPushHub(options);
  const graceMs = options.watchGraceMs ?? DEFAULT_WATCH_GRACE_MS;
  const history = options.history ?? true;
  let skipped: SkippedLines | undefined;

  const push = (entry: StoreEntry | undefined) => {
    if (entry && hub.watching) hub.send({ type: 'exchange', summary: summaryOf(entry), use: { bytes: store.bytes, evicted: store.evicted } });
  };

  // Once a page has left, a reload within the grace period still counts as watching (before any has, `lastLeftAt` is -Infinity).
  const watching = () => hub.watching || performance.now() - hub.lastLeftAt < graceMs;
  // With history, every request is kept once it ends, packed (packed.ts) so that holding a few hundred
  // costs the garbage collector little, its bodies too while the rate allows; a request gets a pending
  // row only while a page is open to see it. Without history, nothing is kept while no page is open,
  // not even a row.
  const rate = bodyRate(options.bodiesPerSecond ?? DEFAULT_BODIES_PER_SECOND, options.bodiesBurst);
  // Requests in flight that the rate allowed to be kept whole: taken when the request starts, right
  // after `capturing` found the rate open, so that the requests starting together do not all count
  // on one allowance.
  const whole = new WeakSet<RequestRecord>();
  const observer: RequestObserver = history
    ? {
        requestStarted(record) {
          if (hub.watching) push(store.addLive(record));
          else if (record.exchange !== undefined && rate.take()) whole.add(record);
        },
        requestEnded(record) {
          const ended = store.endLive(record);
          if (ended === undefined) store.addEnded(record, whole.delete(record) || (record.exchange !== undefined && watching()));
          // A row is made into an entry only for a page open now to be sent.
          if (hub.watching) push(ended ?? store.newest());
        },
      }
    : {
        requestStarted(record) {
          if (watching()) push(store.addLive(record));
        },
        requestEnded(record) {
          push(store.endLive(record));
        },
      };

  const send = (res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}) => {
    res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...extra });
    res.end(body);
  };
  const sendJson = (res: ServerResponse, status: number, value: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
  const text = (res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}) =>
    send(res, status, 'text/plain; charset=utf-8', message, extra);

  const list = (): ExchangeList => ({
    mode,
    ...(options.source !== undefined ? { source: options.source } : {}),
    ...(skipped !== undefined ? { skippedLines: skipped } : {}),
    capacity: store.capacity,
    maxBytes: store.maxBytes,
    bytes: store.bytes,
    evicted: store.evicted,
    exchanges: store.entries().map(summaryOf),
  });

  const detail = (id: string): ExchangeDetail | undefined => {
    const entry = store.get(id);
    if (!entry) return undefined;
    const exchange = entry.kind === 'recorded' ? entry.json : exchangeJson(recordOf(entry));
    const conversation = conversationOf(exchange);
    return { summary: summaryOf(entry), exchange, ...(conversation ? { conversation } : {}) };
  };

  async function route(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path === '/' || path === '/index.html') {
      return send(res, 200, 'text/html; charset=utf-8', PAGE_HTML, { 'content-security-policy': CONTENT_SECURITY_POLICY });
    }
    if (path === '/inspector.js' || path === '/inspector.css') {
      let assets: PageAssets;
      try {
        assets = await loadAssets();
      } catch (err) {
        return text(res, 503, `${(err as Error).message}\n`);
      }
      return path === '/inspector.js'
        ? send(res, 200, 'text/javascript; charset=utf-8', assets.js)
        : send(res, 200, 'text/css; charset=utf-8', assets.css);
    }
    if (path === '/api/exchanges') return sendJson(res, 200, list());
    if (path.startsWith('/api/exchanges/')) {
      const found = detail(decodedOrRaw(path.slice('/api/exchanges/'.length)));
      return found ? sendJson(res, 200, found) : sendJson(res, 404, { error: 'No such exchange in memory (it may have been dropped to make room).' });
    }
    if (path === '/api/search') {
      const q = new URL(req.url ?? '/', 'http://inspector.invalid').searchParams.get('q') ?? '';
      return sendJson(res, 200, { ids: searchBodies(store.entries(), queryWords(q)) });
    }
    if (path === '/api/events') {
      if (mode === 'recording') return text(res, 404, 'A recording has no live events.\n');
      // An open page keeps its session in use, and loses its stream when the session ends.
      const secret = readCookie(req.headers, cookieName(req.socket.localPort));
      return hub.attach(res, SECURITY_HEADERS, () => auth.isSession(secret));
    }
    return text(res, 404, 'Not found.\n');
  }

  const throttle = wrongKeyThrottle(options.now);
  const linkKeyMatches = options.linkKey !== undefined ? linkKeyMatcher(options.linkKey) : undefined;
  const signInPageFor = (res: ServerResponse, status: number, note?: string) =>
    // `same-origin`, not `no-referrer`: under the latter a browser posts the form with `Origin: null`, which the host guard refuses.
    send(res, status, 'text/html; charset=utf-8', signInPage(INSPECTOR_PREFIX, note), { 'content-security-policy': SIGN_IN_CSP, 'referrer-policy': 'same-origin' });
  const signInWithKey = async (req: IncomingMessage, res: ServerResponse, check: (key: string) => boolean) => {
    if (!isOwnOrigin(req.headers.origin, req.headers.host)) {
      return signInPageFor(res, 403, "Sign in from the inspector's own page: this form was not posted from it.");
    }
    const address = req.socket.remoteAddress;
    if (throttle.blocked(address)) {
      return signInPageFor(res, 429, 'Too many wrong keys: try again in a minute.');
    }
    const key = await readSignIn(req);
    if (key === undefined || !check(key)) {
      throttle.failed(address);
      return signInPageFor(res, 401, 'That key may not sign in to the inspector.');
    }
    // A session as the printed link gives one: a token issued and spent at once.
    const session = auth.redeem(auth.issueToken())!;
    const name = cookieName(req.socket.localPort);
    return text(res, 303, 'Signed in.\n', { location: `${INSPECTOR_PREFIX}/`, 'set-cookie': sessionCookie(name, session, INSPECTOR_PREFIX) });
  };

  const mount: Mount = {
    prefix: INSPECTOR_PREFIX,
    handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://inspector.invalid');
      const path = url.pathname.slice(INSPECTOR_PREFIX.length);
      if (path === LINK_PATH && linkKeyMatches) {
        if (req.method !== 'POST') return text(res, 405, 'Ask for a link with a POST.\n', { allow: 'POST' });
        // Only the local user can read the key; a caller on the network is refused whatever it holds.
        if (!isLoopback(req.socket.remoteAddress ?? '') || !linkKeyMatches(req.headers.authorization)) {
          return text(res, 403, 'A fresh link is given only to the local user who can read the link key in the data folder.\n');
        }
        return sendJson(res, 200, { path: `${INSPECTOR_PREFIX}/?token=${auth.issueToken()}` });
      }
      const check = options.signIn;
      if (path === '/sign-in' && check) {
        if (req.method !== 'POST') return text(res, 405, 'Sign in with a POST of the form.\n', { allow: 'POST' });
        signInWithKey(req, res, check).catch(() => {
          if (!res.headersSent) text(res, 400, 'Could not read the sign-in.\n');
        });
        return;
      }
      const name = cookieName(req.socket.localPort);
      const signedIn = auth.isSession(readCookie(req.headers, name));
      const token = url.searchParams.get('token');
      if (token !== null) {
        // A used or unknown token lets in only a browser that already has the cookie.
        const session = auth.redeem(token);
        if (session === undefined && !signedIn) return text(res, 401, NOT_SIGNED_IN);
        const cookie = session !== undefined ? { 'set-cookie': sessionCookie(name, session, INSPECTOR_PREFIX) } : {};
        return text(res, 303, 'Signed in.\n', { location: `${INSPECTOR_PREFIX}/`, ...cookie });
      }
      if (!signedIn) return check && (path === '/' || path === '') ? signInPageFor(res, 401) : text(res, 401, NOT_SIGNED_IN);
      if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, 'The inspector only reads.\n', { allow: 'GET, HEAD' });
      if (path === '') return text(res, 308, 'Moved.\n', { location: `${INSPECTOR_PREFIX}/` });
      route(req, res, path).catch((err: unknown) => {
        if (!res.headersSent) text(res, 500, `${(err as Error).message}\n`);
        else res.destroy();
      });
    },
  };

  return {
    observer,
    mount,
    link: (baseUrl) => `${baseUrl}${INSPECTOR_PREFIX}/?token=${auth.issueToken()}`,
    addRecorded: (json, bytes) => void store.addRecorded(json, bytes),
    addRestored: (facts) => {
      for (const json of facts) store.addRestored(json);
    },
    skippedLines: (lines) => {
      skipped = lines.count > 0 ? lines : undefined;
    },
    get size() {
      return store.size;
    },
    get capturing() {
      return watching() || (history && rate.open());
    },
    history,
    close: () => hub.close(),
  };
}

/** A path segment's text; a malformed escape is no id of ours, so it is looked up as it is (and not found). */
function decodedOrRaw(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
