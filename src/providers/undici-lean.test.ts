/**
 * Pins what `undici-lean.ts` takes from undici's internal layout. undici documents only its index, so a
 * release may move or reshape these files; when one does, these tests fail and undici-lean.ts (and
 * undici-internals.d.ts) must be updated before that release is taken.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Pool, errors } from './undici-lean.js';

const require = createRequire(import.meta.url);
const undici = require('undici') as typeof import('undici');
const INTERNALS = ['undici/lib/api/index.js', 'undici/lib/core/errors.js', 'undici/lib/dispatcher/dispatcher.js', 'undici/lib/dispatcher/pool.js'];
const API_METHODS = ['request', 'stream', 'pipeline', 'upgrade', 'connect'];

describe('undici-lean (undici internals the gateway loads instead of the index)', () => {
  it('finds every internal file it imports', () => {
    for (const path of INTERNALS) expect(() => require.resolve(path), path).not.toThrow();
  });

  it("exports the very objects undici's index exports", () => {
    expect(Pool).toBe(undici.Pool);
    expect(errors).toBe(undici.errors);
    expect(require('undici/lib/dispatcher/dispatcher.js')).toBe(undici.Dispatcher);
  });

  it("installs the same request API undici's index puts on Dispatcher.prototype", () => {
    const api = require('undici/lib/api/index.js') as Record<string, unknown>;
    expect(Object.keys(api).sort()).toEqual([...API_METHODS].sort());
    for (const name of API_METHODS) {
      expect(typeof api[name], name).toBe('function');
      expect((Pool.prototype as unknown as Record<string, unknown>)[name], name).toBe(api[name]);
    }
  });

  it('has the error classes the provider maps', () => {
    for (const name of ['HeadersTimeoutError', 'BodyTimeoutError', 'ConnectTimeoutError', 'SocketError', 'RequestAbortedError'] as const) {
      expect(typeof errors[name], name).toBe('function');
      expect(errors[name].prototype, name).toBeInstanceOf(errors.UndiciError);
    }
  });

  describe('a Pool', () => {
    let server: Server | undefined;
    afterEach(async () => {
      server?.closeAllConnections();
      server?.close();
      server = undefined;
    });
    const listen = async (handler: Parameters<typeof createServer>[1]) => {
      server = createServer(handler);
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };

    it('sends a request and reads the answer', async () => {
      const origin = await listen((req, res) => {
        req.resume();
        req.on('end', () => res.end(`${req.method} ${req.url}`));
      });
      const pool = new Pool(origin);
      try {
        const res = await pool.request({ path: '/v1/x?y=1', method: 'POST', body: '{}' });
        expect(res.statusCode).toBe(200);
        expect(await res.body.text()).toBe('POST /v1/x?y=1');
      } finally {
        await pool.close();
      }
    });

    it('fails with errors.HeadersTimeoutError when no headers come in time', async () => {
      const origin = await listen(() => undefined);
      const pool = new Pool(origin, { headersTimeout: 50 });
      try {
        const failure = await pool.request({ path: '/', method: 'GET' }).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(failure).toBeInstanceOf(errors.HeadersTimeoutError);
      } finally {
        await pool.destroy();
      }
    });
  });

  it('works on its own, without loading the undici index', () => {
    // A fresh process, so nothing else has loaded the index (and its Object.assign) first.
    const lean = fileURLToPath(new URL('./undici-lean.ts', import.meta.url));
    const script = `
      import { createServer } from 'node:http';
      import { createRequire } from 'node:module';
      const { Pool } = await import(${JSON.stringify(lean)});
      const server = createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      const pool = new Pool('http://127.0.0.1:' + server.address().port);
      const res = await pool.request({ path: '/', method: 'GET' });
      const text = await res.body.text();
      await pool.close();
      server.close();
      const index = createRequire(import.meta.url).resolve('undici');
      const loaded = Object.keys(createRequire(import.meta.url).cache).includes(index);
      process.stdout.write(JSON.stringify({ status: res.statusCode, text, indexLoaded: loaded }));
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ status: 200, text: 'ok', indexLoaded: false });
  });
});
