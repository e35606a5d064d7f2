/**
 * Which failures of a Redis command are that command's alone, and which mean Redis is down
 * (redis-connection.ts): the stores throw `UnreadableReply` for an answer they cannot read.
 */

/** A reply a script of the gateway's cannot read: Redis answered, so its connection is not what failed. */
export class UnreadableReply extends Error {
  override readonly name = 'UnreadableReply';
  constructor(script: string) {
    super(`Redis answered the ${script} script with something else than its answer`);
  }
}

/**
 * Whether Redis refused the command alone: a generic or wrong-type error reply (ioredis's ReplyError),
 * as a script stopped on a value it cannot read gives. The other error replies (LOADING, BUSY, READONLY,
 * OOM, MISCONF, NOAUTH, …) refuse every write while they last, so they count as Redis being down.
 */
export function commandAlone(err: unknown): boolean {
  if (err instanceof UnreadableReply) return true;
  return err instanceof Error && err.name === 'ReplyError' && /^(?:ERR|WRONGTYPE) /.test(err.message);
}
