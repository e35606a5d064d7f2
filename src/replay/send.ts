/**
 * Sends a replay request and reads the answer the way the gateway records one:
 * chunks stamped with their arrival (ms since sending), decoded by the same
 * `bodyJson` as the recording, so both sides of a comparison have one shape.
 */
import { request, type Dispatcher } from 'undici';
import { ExitError } from '../errors.js';
import { bodyJson, type BodyJson } from '../log/exchange-json.js';
import type { TimedChunk } from '../log/exchange.js';
import type { ReplayRequest } from './replay-request.js';

export interface ReplayedResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: BodyJson;
  /** Why the body stopped before its end, when it did (what came before is in `body`). */
  readonly error?: string;
}

/** Sends `req` to its URL; `shownAs` names the gateway in the error when it cannot be reached. */
export async function sendReplay(req: ReplayRequest, shownAs: string, dispatcher?: Dispatcher): Promise<ReplayedResponse> {
  const start = performance.now();
  let res: Dispatcher.ResponseData;
  try {
    res = await request(req.url, {
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body ?? null,
      ...(dispatcher ? { dispatcher } : {}),
    });
  } catch (err) {
    // Every later request would fail the same way: stop here, saying where.
    const code = (err as { code?: string }).code;
    throw new ExitError(`Cannot reach ${shownAs}: ${code ?? (err as Error).message}. Is the gateway running there? (--to URL picks another)`, 1);
  }
  const chunks: TimedChunk[] = [];
  let error: string | undefined;
  try {
    for await (const data of res.body) chunks.push({ t: performance.now() - start, data: data as Buffer });
  } catch (err) {
    error = (err as { code?: string }).code ?? (err as Error).message;
  }
  const type = res.headers['content-type'];
  return {
    status: res.statusCode,
    headers: res.headers,
    body: bodyJson({ chunks, truncated: false }, typeof type === 'string' ? type : ''),
    ...(error !== undefined ? { error } : {}),
  };
}
