/**
 * `model-gateway models`: what one key may call, from the config alone (no server needed):
 * exact names and globs, where each goes, and the protocols and features the key's group
 * and the model both allow. The key is only hashed and looked up; it is never printed.
 */
import { hashKey } from '../../config/keys.js';
import { loadConfig } from '../../config/load.js';
import { ExitError } from '../../errors.js';
import type { Feature, Protocol } from '../../protocols/types.js';
import { printable } from '../../log/terminal-text.js';
import { chalkFor } from '../colour.js';
import { featureList, protocolList, servedBy } from '../describe-config.js';
import type { CliIo } from '../io.js';
import { reachableModels, type Reach } from '../reach.js';
import { GATEWAY_KEY_VAR } from '../snippets.js';
import { formatTable, type Column } from '../table.js';

export interface ModelsFlags {
  key?: string;
  config?: string;
  color: boolean;
}

const both = <T>(a: ReadonlySet<T>, b: ReadonlySet<T>): Set<T> => new Set([...a].filter((x) => b.has(x)));

export async function models(flags: ModelsFlags, io: CliIo): Promise<void> {
  const key = flags.key ?? io.env[GATEWAY_KEY_VAR];
  if (key === undefined || key === '') {
    throw new ExitError(`No key to look up: pass --key KEY or set ${GATEWAY_KEY_VAR}.`, 2);
  }
  const { config, source } = await loadConfig({
    ...(flags.config !== undefined ? { configPath: flags.config } : {}),
    cwd: io.cwd,
    env: io.env,
  });
  const digest = hashKey(key);
  const found = config.keys.get(digest);
  const group = found === undefined ? undefined : config.keyGroups.get(found.group);
  if (found === undefined || group === undefined) {
    // The short id is the one the traffic log shows; it does not reveal the key.
    throw new ExitError(`This key (id ${digest.slice(0, 8)}) is not in any key group of ${source.description}.`, 1);
  }

  const c = chalkFor(io.stdout, io.env, flags.color);
  const reach = reachableModels(config, group);
  io.stdout.write(
    `Key ${c.bold(printable(found.name ?? found.id))} of group ${c.bold(printable(group.name))} (${printable(source.description)}) may call${reach.length === 0 ? ` ${c.yellow('nothing')}.` : ':'}\n`,
  );
  if (reach.length === 0) return;
  const columns: Column<Reach>[] = [
    // Config values are printed escaped (servedBy escapes its own).
    { header: 'model', cell: (r) => printable(r.names.join(', ')) },
    { header: 'served by', cell: (r) => (r.whole ? servedBy(r.model) : `${servedBy(r.model)} via ${printable(r.model.pattern)}`) },
    { header: 'protocols', cell: (r) => protocolList(both<Protocol>(r.model.protocols, group.protocols)) },
    { header: 'features', cell: (r) => featureList(both<Feature>(r.model.features, group.features)) },
    { header: 'description', cell: (r) => printable(r.model.description ?? '') },
  ];
  io.stdout.write(formatTable(columns, reach, c));
  if (reach.some((r) => r.model.isGlob)) {
    io.stdout.write(c.gray('  * matches any run of characters, ? one character; exact names win over globs\n'));
  }
}
