/**
 * A redis-server for the `redis` scenario of bench/ab.mjs: on a free loopback port, on the load
 * core beside the upstream (as a team's Redis runs on a machine of its own), persisting nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasCmd, pinnedArgv, startProcess, stopProcess } from './proc.mjs';

export async function startRedis(place) {
  if (!hasCmd('redis-server')) throw new Error('The redis scenario needs redis-server (apt-get install redis-server).');
  const dir = mkdtempSync(join(tmpdir(), 'model-gateway-bench-redis-'));
  const port = await new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: p } = probe.address();
      probe.close(() => resolve(p));
    });
  });
  const argv = ['redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', ''];
  const child = startProcess(pinnedArgv(place, place.loadCore, argv));
  for (let i = 0; ; i++) {
    const ok = await new Promise((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.end('PING\r\n');
        resolve(true);
      }).once('error', () => resolve(false));
    });
    if (ok) break;
    if (i === 100 || child.exitCode !== null) throw new Error(`redis-server did not listen on ${port}: ${child.stderrText()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      await stopProcess(child, 2000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
