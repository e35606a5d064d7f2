/**
 * The inspector (on by default in `serve`) as the benchmark sees it: it signs in
 * with the one-time link from the banner, then reads how much the inspector holds
 * (`GET /_inspector/api/exchanges`: bytes held against its bound, entries, evictions).
 * Called between phases, never inside a measured window.
 */
import { request } from 'undici';

/** Signs in once (the link works once); returns a reader of the inspector's figures, or undefined when it is off. */
export async function inspectorProbe(link) {
  if (!link) return undefined;
  const res = await request(link, { method: 'GET' });
  await res.body.dump();
  const setCookie = [res.headers['set-cookie']].flat()[0];
  if (res.statusCode !== 303 || !setCookie) throw new Error(`inspector sign-in: status ${res.statusCode}, no cookie`);
  const cookie = setCookie.split(';')[0];
  const api = new URL('/_inspector/api/exchanges', link).href;
  return async function read() {
    const r = await request(api, { method: 'GET', headers: { cookie } });
    const list = await r.body.json();
    if (r.statusCode !== 200) throw new Error(`inspector list: status ${r.statusCode}`);
    return { bytes: list.bytes, maxBytes: list.maxBytes, capacity: list.capacity, size: list.exchanges.length, evicted: list.evicted };
  };
}
