/**
 * One request as a fake upstream received it, and a behaviour: how a test answers it. Apart from the
 * fake upstream itself so that canned replies, which are behaviours, need not import the server.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Names and values as sent, in order (duplicates kept). */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  readonly json: unknown;
  /** Resolves true if the client (the gateway) hung up before the answer was complete. */
  readonly aborted: Promise<boolean>;
}

export type Behaviour = (req: Received, res: ServerResponse) => void | Promise<void>;
