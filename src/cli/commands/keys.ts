/**
 * `model-gateway keys new`: a fresh key, its `sha256:` form and the config entry for it.
 * Only those three lines go to stdout, so `model-gateway keys new | head -1` is the key;
 * the hint on where to paste them goes to stderr.
 */
import { generateKey, hashKey } from '../../config/keys.js';
import { chalkFor } from '../colour.js';
import type { CliIo } from '../io.js';

export interface KeysNewFlags {
  group?: string;
  name?: string;
  color: boolean;
}

export function keysNew(flags: KeysNewFlags, io: CliIo, newKey: () => string = generateKey): void {
  const key = newKey();
  const digest = `sha256:${hashKey(key)}`;
  const entry = flags.name === undefined ? JSON.stringify(digest) : `{ "name": ${JSON.stringify(flags.name)}, "key": ${JSON.stringify(digest)} }`;
  io.stdout.write(`${key}\n${digest}\n${entry}\n`);

  const c = chalkFor(io.stderr, io.env, flags.color);
  const where = `keyGroups.${flags.group ?? '<group>'}.keys`;
  io.stderr.write(
    c.gray(
      `Line 1 is the key: give it to the client (it is not stored anywhere). Line 3 goes into ${where} in your config;\n` +
        'the file then holds only the digest. A key may belong to one group only.\n',
    ),
  );
}
