/** The echo streams' events, before framing (`sse/format.ts` writes them). */

export interface SseEvent {
  /** The `event:` line; Chat Completions streams are data-only and leave it out. */
  readonly event?: string;
  /** JSON text, or Chat's `[DONE]`. */
  readonly data: string;
}

/** A typed event whose `event:` name is its `type`, as Responses and Messages streams require. */
export const namedEvent = (payload: { readonly type: string }): SseEvent => ({
  event: payload.type,
  data: JSON.stringify(payload),
});
