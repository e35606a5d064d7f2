/**
 * Storing a translated Responses answer once it has ended: a whole answer as it is sent, a streamed
 * one from its closing event (`response.completed` or `response.incomplete`, which lists every
 * output item again). A failed answer is not stored. Stored before the caller has the end of the
 * answer, so its next request always finds it in this process's memory.
 */
import { isObject, type Json } from '../protocols/json.js';
import { createSseDecoder } from '../sse/parse.js';
import type { ResponsesStore, StoreSettings } from './store.js';

/** What storing one answer needs: where, for whom, and the input items its request carried. */
export interface Keeping {
  readonly store: ResponsesStore;
  readonly group: string;
  readonly settings: StoreSettings;
  readonly input: readonly Json[];
}

const ENDED = new Set(['completed', 'incomplete']);
const CLOSING = /event: response\.(?:completed|incomplete)\n/;

/** Stores a Responses object that ended; anything else (failed, unreadable) is left. */
export function keepResponse(k: Keeping, response: unknown): void {
  if (!isObject(response) || typeof response.id !== 'string' || !Array.isArray(response.output)) return;
  if (typeof response.status !== 'string' || !ENDED.has(response.status)) return;
  const kept = k.store.put(k.group, { id: response.id, input: k.input, output: response.output as Json[] }, k.settings, Date.now());
  // A shared store that fails costs only the references to this answer, which then get a 400 naming the id.
  if (kept instanceof Promise) kept.catch(() => {});
}

/**
 * Reads the caller's stream text as it goes out, for its closing event. Only text holding one is
 * decoded: the frames come from the gateway's own encoder, each whole within one piece of text.
 */
export function keepFromStream(k: Keeping, text: string): void {
  if (!CLOSING.test(text)) return;
  const decoder = createSseDecoder();
  for (const event of [...decoder.push(text), ...decoder.end()]) {
    if (event.event !== 'response.completed' && event.event !== 'response.incomplete') continue;
    const data: unknown = JSON.parse(event.data);
    if (isObject(data)) keepResponse(k, data.response);
  }
}
