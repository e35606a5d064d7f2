import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors.js';
import { CallAbort } from './abort.js';
import { Pool } from 'undici';

describe('CallAbort', () => {
  it('aborts like an AbortController: the first reason wins, a reasonless abort is an AbortError', () => {
    const a = new CallAbort();
    let heard = 0;
    a.once('abort', () => heard++);
    expect(a.aborted).toBe(false);
    a.abort();
    a.abort(new GatewayError('timeout', 'late'));
    expect(heard).toBe(1);
    expect(a.aborted).toBe(true);
    expect(a.reason).toBeInstanceOf(DOMException);
    expect((a.reason as DOMException).name).toBe('AbortError');
  });

  it('makes a real AbortSignal only when asked, following aborts before and after', () => {
    const before = new CallAbort();
    const reason = new GatewayError('timeout', 'late');
    before.abort(reason);
    expect(before.signal.aborted).toBe(true);
    expect(before.signal.reason).toBe(reason);

    const after = new CallAbort();
    const signal = after.signal;
    expect(signal.aborted).toBe(false);
    after.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(after.signal).toBe(signal);
  });

  it('cancels an undici request in flight, with its reason, and leaves no listener behind', async () => {
    const server = createServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const pool = new Pool(origin);
    try {
      const a = new CallAbort();
      const pending = pool.request({ origin, path: '/', method: 'POST', body: '{}', signal: a });
      await once(server, 'request');
      expect(a.listenerCount('abort')).toBe(1);
      const reason = new GatewayError('timeout', 'late');
      a.abort(reason);
      await expect(pending).rejects.toBe(reason);
      expect(a.listenerCount('abort')).toBe(0);
    } finally {
      await pool.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
