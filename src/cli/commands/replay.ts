/**
 * `model-gateway replay FILE`: sends recorded requests (a `--log-file` recording)
 * through a running gateway again, one at a time, and prints how each new answer
 * compares with the recorded one. Exit 1 when any replay got another status, a
 * stream that did not reach its end event, or a stream against recorded JSON; and
 * when any exchange was refused (a method, path or header that is more than a plain
 * request to the gateway) or any line of the file was not an exchange: both are
 * reported, and the rest replayed.
 */
import path from 'node:path';
import { loadServerSection } from '../../config/load.js';
import { ConfigError, ExitError } from '../../errors.js';
import { compareAnswers } from '../../replay/compare.js';
import { formatComparison, formatHeading, formatRefusal, formatSkip } from '../../replay/format.js';
import { readRecording, selectExchanges } from '../../replay/recording.js';
import { credentialHeaders, replayRequest } from '../../replay/replay-request.js';
import { sendReplay } from '../../replay/send.js';
import { replayTarget, shownTarget } from '../../replay/target.js';
import { badLinesReport } from '../../log/read-recording.js';
import { printable } from '../../log/terminal-text.js';
import { chalkFor } from '../colour.js';
import type { CliIo } from '../io.js';
import { clientUrl, GATEWAY_KEY_VAR } from '../snippets.js';

export interface ReplayFlags {
  id?: string;
  model?: string;
  to?: string;
  key?: string;
  config?: string;
  /** The longest line read, in MiB. */
  maxLine?: number;
  color: boolean;
}

/** Where the gateway of the config listens (the built-in default's when there is no config file). */
async function configuredUrl(flags: ReplayFlags, io: CliIo): Promise<string> {
  const { server } = await loadServerSection({ ...(flags.config !== undefined ? { configPath: flags.config } : {}), cwd: io.cwd, env: io.env }).catch((err: unknown) => {
    if (!(err instanceof ConfigError)) throw err;
    throw new ExitError(`${err.message}\nreplay reads the config only for the gateway's address: pass --to URL instead.`, 1);
  });
  if (server.port === 0) throw new ExitError("server.port is 0, so the gateway's port is only known once serve starts: pass --to URL.", 1);
  return clientUrl(server);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export async function replay(file: string, flags: ReplayFlags, io: CliIo): Promise<void> {
  const maxLineBytes = flags.maxLine !== undefined ? flags.maxLine * 1024 * 1024 : undefined;
  const { exchanges: all, read } = await readRecording(path.resolve(io.cwd, file), file, maxLineBytes);
  const badLines = badLinesReport(file, read);
  if (badLines.length > 0) io.stderr.write(`${badLines.map(printable).join('\n')}\n`);
  const selected = selectExchanges(all, file, flags.id);
  const envKey = io.env[GATEWAY_KEY_VAR];
  const key = flags.key ?? (envKey === '' ? undefined : envKey);
  if (key === undefined && selected.some((r) => credentialHeaders(r.exchange).length > 0)) {
    throw new ExitError(`No key to send: recordings hold none. Pass --key KEY or set ${GATEWAY_KEY_VAR}.`, 2);
  }
  const target = replayTarget(flags.to ?? (await configuredUrl(flags, io)), flags.to !== undefined ? '--to' : "the config's server address");
  const base = shownTarget(target);
  const c = chalkFor(io.stdout, io.env, flags.color);
  const write = (text: string) => io.stdout.write(text);

  write(`Replaying ${plural(selected.length, 'exchange')} of ${printable(file)} against ${printable(base)}\n`);
  let same = 0;
  let different = 0;
  let skipped = 0;
  let refused = 0;
  for (const { line, exchange: x } of selected) {
    const heading = { id: x.id, method: x.method, path: x.path, line, ...(x.model !== undefined ? { model: x.model } : {}), stream: x.stream === true };
    write(`\n${formatHeading(heading, c, flags.model)}`);
    const prepared = replayRequest(x, target, {
      ...(flags.model !== undefined ? { model: flags.model } : {}),
      ...(key !== undefined ? { key } : {}),
    });
    if ('refuse' in prepared) {
      refused++;
      write(formatRefusal(prepared.refuse, c));
      continue;
    }
    if ('skip' in prepared) {
      skipped++;
      write(formatSkip(prepared.skip, c));
      continue;
    }
    const replayed = await sendReplay(prepared.request, base);
    const status = x.response?.status ?? x.status;
    const recorded = { ...(status !== undefined ? { status } : {}), body: x.response?.body ?? { bytes: 0 } };
    const comparison = compareAnswers(x.path, recorded, replayed);
    write(formatComparison(comparison, c));
    if (comparison.problems.length === 0) same++;
    else different++;
  }

  const replayedCount = same + different;
  const notReplayed = `${skipped > 0 ? `; ${skipped} skipped` : ''}${refused > 0 ? `; ${c.red(`${refused} refused`)}` : ''}`;
  write(`\n${plural(replayedCount, 'replayed request')}: ${c.green(`${same} matched`)}, ${different > 0 ? c.red(`${different} did not`) : '0 did not'}${notReplayed}.\n`);
  const problems = [
    ...(different > 0 ? [`${different} of ${plural(replayedCount, 'replayed request')} did not match (see ✗ above).`] : []),
    ...(refused > 0
      ? [`${plural(refused, 'exchange')} refused: a recorded method, path or header that is more than a plain request to the gateway (see ✗ refused above).`]
      : []),
    ...(read.badCount > 0 ? [`${plural(read.badCount, 'line')} of ${file} skipped: not an exchange (listed at the start).`] : []),
  ];
  if (problems.length > 0) throw new ExitError(problems.join('\n'), 1);
  if (replayedCount === 0) throw new ExitError('Nothing was replayed: every selected exchange was skipped (see above).', 1);
}
