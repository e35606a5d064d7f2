/** Server-sent event framing for the echo streams. */

export interface SseEvent {
  /** The `event:` line; Chat Completions streams are data-only and leave it out. */
  readonly event?: string;
  /** One line: JSON.stringify never emits raw newlines, and `[DONE]` has none. */
  readonly data: string;
}

export const formatSse = ({ event, data }: SseEvent): string =>
  event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`;

/** A typed event whose `event:` name is its `type`, as Responses and Messages streams require. */
export const namedEvent = (payload: { readonly type: string }): SseEvent => ({
  event: payload.type,
  data: JSON.stringify(payload),
});
