/**
 * `model-gateway replay FILE`: sends recorded requests (a `--log-file` recording)
 * through a running gateway again, one at a time, and prints how each new answer
 * compares with the recorded one. Exit 1 when any replay got another status, a
 * stream that did not reach its end event, or a stream against recorded JSON.
 */
import path from 'node:path';
import { loadConfig } from '../../config/load.js';
import { ConfigError, ExitError } from '../../errors.js';
import { compareAnswers } from '../../replay/compare.js';
import { formatComparison, formatHeading, formatSkip } from '../../replay/format.js';
import { readRecording, selectExchanges } from '../../replay/recording.js';
import { credentialHeaders, replayRequest } from '../../replay/replay-request.js';
import { baseUrl, sendReplay } from '../../replay/send.js';
import { chalkFor } from '../colour.js';
import type { CliIo } from '../io.js';
import { clientUrl, GATEWAY_KEY_VAR } from '../snippets.js';

export interface ReplayFlags {
  id?: string;
  model?: string;
  to?: string;
  key?: string;
  config?: string;
  color: boolean;
}

/** Where the gateway of the config listens (the built-in default's when there is no config file). */
async function configuredUrl(flags: ReplayFlags, io: CliIo): Promise<string> {
  let server;
  try {
    ({ server } = (await loadConfig({ ...(flags.config !== undefined ? { configPath: flags.config } : {}), cwd: io.cwd, env: io.env })).config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    throw new ExitError(`${err.message}\nreplay reads the config only for the gateway's address: pass --to URL instead.`, 1);
  }
  if (server.port === 0) throw new ExitError("server.port is 0, so the gateway's port is only known once serve starts: pass --to URL.", 1);
  return clientUrl(server);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export async function replay(file: string, flags: ReplayFlags, io: CliIo): Promise<void> {
  const all = await readRecording(path.resolve(io.cwd, file), file);
  const selected = selectExchanges(all, file, flags.id);
  const envKey = io.env[GATEWAY_KEY_VAR];
  const key = flags.key ?? (envKey === '' ? undefined : envKey);
  if (key === undefined && selected.some((r) => credentialHeaders(r.exchange).length > 0)) {
    throw new ExitError(`No key to send: recordings hold none. Pass --key KEY or set ${GATEWAY_KEY_VAR}.`, 2);
  }
  const base = flags.to !== undefined ? baseUrl(flags.to) : await configuredUrl(flags, io);
  const c = chalkFor(io.stdout, io.env, flags.color);
  const write = (text: string) => io.stdout.write(text);

  write(`Replaying ${plural(selected.length, 'exchange')} of ${file} against ${base}\n`);
  let same = 0;
  let different = 0;
  let skipped = 0;
  for (const { line, exchange: x } of selected) {
    const heading = { id: x.id, method: x.method, path: x.path, line, ...(x.model !== undefined ? { model: x.model } : {}), stream: x.stream === true };
    write(`\n${formatHeading(heading, c, flags.model)}`);
    const prepared = replayRequest(x, {
      ...(flags.model !== undefined ? { model: flags.model } : {}),
      ...(key !== undefined ? { key } : {}),
    });
    if ('skip' in prepared) {
      skipped++;
      write(formatSkip(prepared.skip, c));
      continue;
    }
    const replayed = await sendReplay(base, prepared.request);
    const status = x.response?.status ?? x.status;
    const recorded = { ...(status !== undefined ? { status } : {}), body: x.response?.body ?? { bytes: 0 } };
    const comparison = compareAnswers(x.path, recorded, replayed);
    write(formatComparison(comparison, c));
    if (comparison.problems.length === 0) same++;
    else different++;
  }

  const replayedCount = same + different;
  write(`\n${plural(replayedCount, 'replayed request')}: ${c.green(`${same} matched`)}, ${different > 0 ? c.red(`${different} did not`) : '0 did not'}${skipped > 0 ? `; ${skipped} skipped` : ''}.\n`);
  if (replayedCount === 0) throw new ExitError('Nothing was replayed: every selected exchange was skipped (see above).', 1);
  if (different > 0) {
    throw new ExitError(`${different} of ${plural(replayedCount, 'replayed request')} did not match (see ✗ above).`, 1);
  }
}
