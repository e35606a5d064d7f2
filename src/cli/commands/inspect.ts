/**
 * `model-gateway inspect FILE`: the inspector page on a recording (`serve --log-file`),
 * served on a port of its own with the same one-time link, and no traffic.
 */
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DEFAULT_HOST } from '../../config/schema.js';
import { ExitError } from '../../errors.js';
import { createInspector, INSPECTOR_PREFIX } from '../../inspector/inspector.js';
import { readRecording } from '../../inspector/recording.js';
import { isLoopback, pageAllowed } from '../../server/host-guard.js';
import { badLinesReport, unreadableRecording } from '../../log/read-recording.js';
import { printable } from '../../log/terminal-text.js';
import { chalkFor } from '../colour.js';
import type { CliIo } from '../io.js';

export interface InspectFlags {
  host?: string;
  port?: number;
  keep?: number;
  memory?: number;
  /** The longest line read, in MiB. */
  maxLine?: number;
  color: boolean;
}

export async function inspect(file: string, flags: InspectFlags, io: CliIo): Promise<void> {
  const c = chalkFor(io.stdout, io.env, flags.color);
  const resolved = path.resolve(io.cwd, file);
  try {
    const kind = await stat(resolved);
    if (!kind.isFile()) throw new Error(kind.isDirectory() ? 'it is a folder' : 'not a file');
  } catch (err) {
    throw new ExitError(unreadableRecording(file, err), 1);
  }
  const inspector = createInspector({
    mode: 'recording',
    source: path.basename(resolved),
    ...(flags.keep !== undefined ? { capacity: flags.keep } : {}),
    ...(flags.memory !== undefined ? { maxBytes: flags.memory * 1024 * 1024 } : {}),
  });
  const stats = await readRecording(resolved, inspector.addRecorded, flags.maxLine !== undefined ? flags.maxLine * 1024 * 1024 : undefined).catch(
    (err: unknown) => {
      throw new ExitError(unreadableRecording(file, err), 1);
    },
  );
  inspector.skippedLines({ count: stats.badCount, lines: stats.bad.map((b) => b.line) });
  const badLines = badLinesReport(file, stats);
  if (badLines.length > 0) io.stderr.write(`${badLines.map(printable).join('\n')}\n`);

  const host = flags.host ?? DEFAULT_HOST;
  const server = createServer((req, res) => {
    // A page of recorded traffic is guarded against DNS rebinding and other origins as the gateway is.
    if (!pageAllowed(req, res, isLoopback(host), [])) return;
    const url = req.url ?? '/';
    if (url === INSPECTOR_PREFIX || url.startsWith(`${INSPECTOR_PREFIX}/`) || url.startsWith(`${INSPECTOR_PREFIX}?`)) return inspector.mount.handle(req, res);
    res.writeHead(url === '/' ? 302 : 404, { location: `${INSPECTOR_PREFIX}/`, 'content-type': 'text/plain; charset=utf-8' });
    res.end(url === '/' ? 'See /_inspector/.\n' : 'Not found.\n');
  });
  const base = await new Promise<string>((resolve, reject) => {
    server.once('error', reject);
    server.listen(flags.port ?? 0, host, () => {
      const a = server.address() as AddressInfo;
      resolve(`http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`);
    });
  }).catch((err: unknown) => {
    throw new ExitError(`Cannot listen on ${host}:${flags.port ?? 0}: ${(err as Error).message}`, 1);
  });

  const kept = inspector.size < stats.exchanges ? ` (the last ${inspector.size} kept; --keep and --memory raise the limits)` : '';
  const skipped = stats.badCount > 0 ? c.yellow(` · ${stats.badCount} line${stats.badCount === 1 ? '' : 's'} skipped, not exchanges (listed above)`) : '';
  io.stdout.write(
    [
      `${c.bold.green('model-gateway')} inspector on ${c.bold(printable(file))}: ${stats.exchanges} exchange${stats.exchanges === 1 ? '' : 's'}${kept}${skipped}`,
      `${c.bold('open'.padEnd(10))}${c.underline(inspector.link(base))} ${c.gray('(works once: it signs this browser in with a cookie)')}`,
      c.gray('Ctrl-C stops it.'),
      '',
    ].join('\n'),
  );

  await io.stopSignal();
  inspector.close();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
