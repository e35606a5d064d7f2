/**
 * The inspector (on by default in `serve`) as the benchmark sees it.
 *
 * Unwatched (the default gateway): `inspectorProbe` signs in with the banner's
 * one-time link and reads how much the inspector holds (`GET
 * /_inspector/api/exchanges`: bytes held against its bound, entries, evictions)
 * between phases, never inside a measured window. Signing in and reading the list
 * do not count as watching: only an open event stream does.
 *
 * Watched: `startWatcher` runs bench/watcher.mjs, a page's event stream kept open
 * and read, so the gateway captures whole exchanges while it runs.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { pinnedArgv } from './proc.mjs';

const WATCHER = fileURLToPath(new URL('../watcher.mjs', import.meta.url));

/** A reader of the inspector's figures, for a signed-in cookie. */
export function inspectorReader(link, cookie) {
  const api = new URL('/_inspector/api/exchanges', link).href;
  return async function read() {
    const r = await request(api, { method: 'GET', headers: { cookie } });
    const list = await r.body.json();
    if (r.statusCode !== 200) throw new Error(`inspector list: status ${r.statusCode}`);
    return { bytes: list.bytes, maxBytes: list.maxBytes, capacity: list.capacity, size: list.exchanges.length, evicted: list.evicted };
  };
}

/** Signs in once (the link works once); returns a reader of the inspector's figures, or undefined when it is off. */
export async function inspectorProbe(link) {
  if (!link) return undefined;
  const res = await request(link, { method: 'GET' });
  await res.body.dump();
  const setCookie = [res.headers['set-cookie']].flat()[0];
  if (res.statusCode !== 303 || !setCookie) throw new Error(`inspector sign-in: status ${res.statusCode}, no cookie`);
  return inspectorReader(link, setCookie.split(';')[0]);
}

/**
 * Starts a watcher (bench/watcher.mjs, pinned to the load core) on the inspector at `link`
 * and resolves once its event stream is open. Returns `read()` (the inspector's figures, with
 * the watcher's cookie) and `stop()`, which closes the stream and resolves with the watcher's tally.
 */
export function startWatcher(ctx, link, timeoutMs = 15_000) {
  if (!link) return Promise.reject(new Error('the gateway printed no inspector link'));
  const argv = pinnedArgv(ctx.place, ctx.place.loadCore, [process.execPath, WATCHER, link]);
  const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  ctx.children.add(child);
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => {
    if (err.length < 5000) err += d;
  });
  const exited = new Promise((resolve) => child.once('exit', (code) => {
    ctx.children.delete(child);
    resolve(code);
  }));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`watcher not connected within ${timeoutMs} ms: ${err}`));
    }, timeoutMs);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`watcher exited ${code} before connecting: ${err}`));
    });
    const onData = (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      child.stdout.off('data', onData);
      clearTimeout(timer);
      const { cookie } = JSON.parse(out.slice(0, nl));
      out = out.slice(nl + 1);
      child.stdout.on('data', (more) => (out += more));
      resolve({
        pid: child.pid,
        read: inspectorReader(link, cookie),
        async stop() {
          child.stdin.end();
          const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 10_000))]);
          if (code !== 0) {
            child.kill('SIGKILL');
            throw new Error(`watcher exited ${code}: ${err}`);
          }
          return JSON.parse(out.trim().split('\n').pop());
        },
      });
    };
    child.stdout.on('data', onData);
  });
}
