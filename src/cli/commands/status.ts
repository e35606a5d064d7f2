/**
 * `model-gateway status` and `model-gateway stop`: the gateway a launcher started in the background
 * (`model-gateway claude|codex|gemini`), one answering on the configured address, or else those on
 * other ports that left their inspector link key in the data folder.
 */
import { homedir } from 'node:os';
import { readdirSync } from 'node:fs';
import { loadServerSection } from '../../config/load.js';
import { ExitError } from '../../errors.js';
import { printable } from '../../log/terminal-text.js';
import { dataDir } from '../../storage/data-dir.js';
import { alive, probeGateway, runningBackground, stopBackground } from '../background.js';
import { backgroundFiles, type BackgroundFiles } from '../background-files.js';
import type { CliIo } from '../io.js';
import { clientUrl } from '../snippets.js';
import { request } from 'undici';
import { LINK_ANSWER, LINK_URL_PATH, linkKeyFile, linkKeyPorts, readLinkKey } from '../../inspector/link-key.js';

export interface StatusFlags {
  config?: string;
  /** `status --link`: a fresh one-time inspector link from the running gateway. */
  link?: boolean;
}

/** The server section alone (its address and data folder): a provider key unset in this shell does not stop these commands. */
async function filesFor(flags: StatusFlags, io: CliIo) {
  const { server } = await loadServerSection({ ...(flags.config !== undefined ? { configPath: flags.config } : {}), cwd: io.cwd, env: io.env });
  const data = dataDir({ configured: server.dataDir, env: io.env, platform: process.platform, home: homedir() });
  return { server, data, files: backgroundFiles(data) };
}

/**
 * A fresh one-time link from the gateway at `url`, asked over loopback with the link key it wrote in
 * the data folder for its port (inspector/link-key.ts).
 */
async function freshLink(url: string, data: string): Promise<string> {
  const port = Number(new URL(url).port);
  const file = linkKeyFile(data, port);
  const key = readLinkKey(file);
  if (key === undefined) {
    throw new ExitError(
      `no inspector link key for the gateway on port ${port} in ${printable(file)}: it runs with --no-inspector, as another user, or with another data folder (server.dataDir, MODEL_GATEWAY_DATA_DIR).`,
      1,
    );
  }
  let status: number;
  let text: string;
  try {
    const answer = await request(new URL(LINK_URL_PATH, url), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      headersTimeout: 5000,
      bodyTimeout: 5000,
    });
    status = answer.statusCode;
    text = (await answer.body.text()).slice(0, 4096);
  } catch (err) {
    throw new ExitError(`could not ask ${printable(url)} for an inspector link: ${printable((err as Error).message)}`, 1);
  }
  let path: unknown;
  try {
    path = (JSON.parse(text) as { path?: unknown }).path;
  } catch {
    path = undefined;
  }
  if (status !== 200 || typeof path !== 'string' || !LINK_ANSWER.test(path)) {
    throw new ExitError(`the gateway at ${printable(url)} gave no inspector link (HTTP ${status}): ${printable(text.split('\n')[0] ?? '')}`, 1);
  }
  return `${url}${path}`;
}

const linkLine = (link: string) => `inspector: ${printable(link)}  (new; works once)`;
/** A gateway `serve` started, found answering at `url`. */
const runningLine = (url: string, version: string) => `gateway: running at ${printable(url)} (version ${printable(version)}), not in the background\n`;

/** Launchers whose clients still run. */
function clients(files: BackgroundFiles): number {
  try {
    return readdirSync(files.launchers).filter((name) => Number.isInteger(Number(name)) && alive(Number(name))).length;
  } catch {
    return 0;
  }
}

export async function status(flags: StatusFlags, io: CliIo): Promise<void> {
  const { server, data, files } = await filesFor(flags, io);
  const background = await runningBackground(files);
  if (background !== undefined) {
    const link = flags.link ? linkLine(await freshLink(background.url, data)) : undefined;
    const lines = [
      `background gateway: running at ${printable(background.url)} (pid ${background.pid})`,
      `clients started through it: ${clients(files)}`,
      ...(link !== undefined ? [link] : background.inspectorUrl !== undefined ? [`inspector: ${printable(background.inspectorUrl)}`] : []),
      `log: ${printable(files.log)}`,
    ];
    io.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  const url = server.port === 0 ? undefined : clientUrl(server);
  const probe = url === undefined ? undefined : await probeGateway(url);
  if (probe?.kind === 'gateway') {
    io.stdout.write(runningLine(url!, probe.version));
    if (flags.link) io.stdout.write(`${linkLine(await freshLink(url!, data))}\n`);
    return;
  }
  const none = probe?.kind === 'other' ? `no gateway: something else answers at ${printable(url!)}` : `no gateway running${url !== undefined ? ` at ${printable(url)}` : ''}`;
  const others = await elsewhere(data, server.port);
  if (others.length > 0) {
    const found = others.length === 1 ? 'another port by its inspector link key' : 'other ports by their inspector link keys';
    io.stdout.write(`${none}; found on ${found}:\n`);
    for (const other of others) {
      io.stdout.write(runningLine(other.url, other.version));
      if (flags.link) io.stdout.write(`${linkLine(await freshLink(other.url, data))}\n`);
    }
    return;
  }
  // Asked for a link, finding no gateway to give one is a failure.
  if (flags.link) throw new ExitError(`${none}: no inspector link to give.`, 1);
  io.stdout.write(`${none}\n`);
}

/**
 * Gateways of this user's data folder on other ports than the configured one (`serve --port N`, or a
 * port picked at start): each wrote a link key for its port, and answers as a gateway on loopback there.
 */
async function elsewhere(data: string, configured: number): Promise<{ readonly url: string; readonly version: string }[]> {
  const ports = linkKeyPorts(data).filter((port) => port !== configured);
  const found = await Promise.all(
    ports.map(async (port) => {
      const url = clientUrl({ host: '127.0.0.1', port });
      const probe = await probeGateway(url);
      return probe.kind === 'gateway' ? { url, version: probe.version } : undefined;
    }),
  );
  return found.filter((g) => g !== undefined);
}

export async function stop(flags: StatusFlags, io: CliIo): Promise<void> {
  const { files } = await filesFor(flags, io);
  const background = await runningBackground(files);
  if (background === undefined) throw new ExitError('no background gateway is running (a gateway started with serve is stopped where it runs: Ctrl-C).', 3);
  if (!(await stopBackground(files, background))) throw new ExitError(`the background gateway (pid ${background.pid}) did not stop in time.`, 1);
  io.stdout.write(`stopped the background gateway at ${printable(background.url)}\n`);
}
