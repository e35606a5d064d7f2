/**
 * Which requests may reach the gateway at all, by their `Host` and `Origin` headers.
 *
 * DNS rebinding: a web page on a name its owner controls makes that name resolve to 127.0.0.1,
 * and the browser then treats the local gateway as that page's own origin. The request still
 * names the attacker's host in `Host`, so a gateway listening on a loopback address accepts only
 * loopback names there (`localhost`, `*.localhost`, which browsers resolve themselves and never
 * ask DNS for, `127.x.y.z`, `[::1]`), with any port, plus `server.allowedHosts`.
 *
 * Cross-origin pages: a browser sends `Origin` with every cross-origin request (and `Origin: null`
 * from sandboxed frames and files). The gateway serves no CORS, so no page of another origin can
 * read its answers, but a plain form POST needs no preflight and would still make it act; so a
 * request whose `Origin` is not the gateway's own (the scheme and the `Host` it was sent to) or a
 * name in `server.allowedHosts` is refused, however the gateway listens. SDKs outside a browser
 * send no `Origin`. The inspector's page is same-origin.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError, invalidRequest } from '../errors.js';

/**
 * Throws the refusal for a request whose Host or Origin is not accepted. `loopback`: the server
 * listens on a loopback address, so `Host` must name this machine. `allowedHosts`: names accepted
 * besides the loopback ones (lowercase, as the config holds them; IPv6 with or without brackets).
 */
export function checkHostAndOrigin(req: IncomingMessage, loopback: boolean, allowedHosts: readonly string[]): void {
  const host = req.headers.host;
  if (host === undefined) {
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400. HTTP/1.0 may omit it; no browser does.
    if (req.httpVersionMajor === 1 && req.httpVersionMinor === 1) throw invalidRequest('Missing required header: Host.');
    if (loopback) throw refused('The request names no host (no Host header).');
  } else {
    // Node keeps the first of repeated Host headers; RFC 9112 §3.2 has them answered 400.
    if (countHeader(req.rawHeaders, 'host') > 1) throw invalidRequest('The request carries more than one Host header.');
    if (loopback && !hostAccepted(host, allowedHosts)) {
      throw refused(
        `Host '${shown(host)}' is not accepted: this gateway listens on a loopback address and answers only to localhost, ` +
          'loopback addresses and the names in server.allowedHosts (a guard against DNS rebinding).',
      );
    }
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !originAccepted(origin, host, allowedHosts)) {
    throw refused(
      `Origin '${shown(origin)}' is not accepted: requests from web pages of other origins are refused (add the page's host name to server.allowedHosts to accept it).`,
    );
  }
}

const refused = (message: string) => new GatewayError('permission', message, { code: 'host_not_allowed' });

/** Quoted back to the caller: kept short and printable. */
const shown = (value: string) => value.slice(0, 100).replace(/[^\x20-\x7e]/g, '?');

function countHeader(rawHeaders: readonly string[], name: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const h = rawHeaders[i]!;
    if (h.length === name.length && h.toLowerCase() === name) n++;
  }
  return n;
}

/**
 * The same guard for a page (the inspector, on the gateway's port or `inspect`'s own): whether the
 * request may be served; if not, its refusal has been answered as plain text.
 */
export function pageAllowed(req: IncomingMessage, res: ServerResponse, loopback: boolean, allowedHosts: readonly string[]): boolean {
  try {
    checkHostAndOrigin(req, loopback, allowedHosts);
    return true;
  } catch (err) {
    const { status, message } = err as GatewayError;
    const text = `${message}\n`;
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return false;
  }
}

/** The host name of a Host header value (`name`, `name:port`, `[v6]`, `[v6]:port`), lowercase; undefined when malformed. */
export function hostName(host: string): string | undefined {
  let name: string;
  let rest: string;
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end === -1) return undefined;
    name = host.slice(0, end + 1);
    rest = host.slice(end + 1);
  } else {
    const colon = host.indexOf(':');
    name = colon === -1 ? host : host.slice(0, colon);
    rest = colon === -1 ? '' : host.slice(colon);
  }
  if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined;
  return name === '' ? undefined : name.toLowerCase();
}

const IPV4_LOOPBACK = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** Names only this machine answers to, as they appear in a Host header. */
export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost') || name === '[::1]') return true;
  const quad = IPV4_LOOPBACK.exec(name);
  if (quad === null) return false;
  return quad.slice(1).every((octet) => Number(octet) <= 255);
}

/**
 * The last Host value found to name this machine: a client names the same host on every request, and
 * parsing it again cost each request a regular expression's match (docs/performance.md, "A small request's allocations").
 */
let loopbackHost: string | undefined;

export function hostAccepted(host: string, allowedHosts: readonly string[]): boolean {
  if (host === loopbackHost) return true;
  const name = hostName(host);
  if (name === undefined) return false;
  if (isLoopbackName(name)) {
    loopbackHost = host;
    return true;
  }
  return listed(name, allowedHosts);
}

function listed(name: string, allowedHosts: readonly string[]): boolean {
  const bare = name.startsWith('[') ? name.slice(1, -1) : name;
  return allowedHosts.some((entry) => entry === name || entry === bare);
}

function originAccepted(origin: string, host: string | undefined, allowedHosts: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` and anything else that is not an origin
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (listed(url.hostname, allowedHosts)) return true;
  return sameHost(url, host);
}

/** The gateway's own origin: the page was loaded from the very host and port this request went to. */
function sameHost(url: URL, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    return new URL(`${url.protocol}//${host}`).host === url.host;
  } catch {
    return false;
  }
}

/**
 * Whether `origin` is the gateway's own (the `Host` the request was sent to, over HTTP or, behind a
 * proxy that ends TLS, HTTPS), and nothing
 * else: no absent Origin, no `null`, no name of `server.allowedHosts` other than the one this request named.
 * For what a browser must have posted from the gateway's own page (the inspector's sign-in form).
 */
export function isOwnOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin && sameHost(url, host);
}

/** Addresses (and the name `localhost`) only this machine can reach: a listening address, or a socket's `remoteAddress`. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h.startsWith('::ffff:127.');
}
