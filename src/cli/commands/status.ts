/**
 * `model-gateway status` and `model-gateway stop`: the gateway a launcher started in the background
 * (`model-gateway claude|codex|gemini`), and one answering on the configured address.
 */
import { homedir } from 'node:os';
import { readdirSync } from 'node:fs';
import { loadServerSection } from '../../config/load.js';
import { ExitError } from '../../errors.js';
import { printable } from '../../log/terminal-text.js';
import { dataDir } from '../../storage/data-dir.js';
import { alive, backgroundFiles, type BackgroundFiles, probeGateway, runningBackground, stopBackground } from '../background.js';
import type { CliIo } from '../io.js';
import { clientUrl } from '../snippets.js';

export interface StatusFlags {
  config?: string;
}

/** The server section alone (its address and data folder): a provider key unset in this shell does not stop these commands. */
async function filesFor(flags: StatusFlags, io: CliIo) {
  const { server } = await loadServerSection({ ...(flags.config !== undefined ? { configPath: flags.config } : {}), cwd: io.cwd, env: io.env });
  return { server, files: backgroundFiles(dataDir({ configured: server.dataDir, env: io.env, platform: process.platform, home: homedir() })) };
}

/** Launchers whose clients still run. */
function clients(files: BackgroundFiles): number {
  try {
    return readdirSync(files.launchers).filter((name) => Number.isInteger(Number(name)) && alive(Number(name))).length;
  } catch {
    return 0;
  }
}

export async function status(flags: StatusFlags, io: CliIo): Promise<void> {
  const { server, files } = await filesFor(flags, io);
  const background = await runningBackground(files);
  if (background !== undefined) {
    const lines = [
      `background gateway: running at ${printable(background.url)} (pid ${background.pid})`,
      `clients started through it: ${clients(files)}`,
      ...(background.inspectorUrl !== undefined ? [`inspector: ${printable(background.inspectorUrl)}`] : []),
      `log: ${printable(files.log)}`,
    ];
    io.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  const url = server.port === 0 ? undefined : clientUrl(server);
  const probe = url === undefined ? undefined : await probeGateway(url);
  if (probe?.kind === 'gateway') io.stdout.write(`gateway: running at ${printable(url!)} (version ${printable(probe.version)}), not in the background\n`);
  else if (probe?.kind === 'other') io.stdout.write(`no gateway: something else answers at ${printable(url!)}\n`);
  else io.stdout.write(`no gateway running${url !== undefined ? ` at ${printable(url)}` : ''}\n`);
}

export async function stop(flags: StatusFlags, io: CliIo): Promise<void> {
  const { files } = await filesFor(flags, io);
  const background = await runningBackground(files);
  if (background === undefined) throw new ExitError('no background gateway is running (a gateway started with serve is stopped where it runs: Ctrl-C).', 3);
  if (!(await stopBackground(files, background))) throw new ExitError(`the background gateway (pid ${background.pid}) did not stop in time.`, 1);
  io.stdout.write(`stopped the background gateway at ${printable(background.url)}\n`);
}
