/**
 * `previous_response_id` within one WebSocket connection, as OpenAI's WebSocket mode has it: the
 * connection remembers its last response (the input it was given and the items it produced), so
 * the next `response.create` may send only the new input items and name that response. The
 * gateway expands such a request into the whole conversation before it enters the pipeline, so
 * every route serves it, translated ones included, and an upstream never needs state of its own
 * (`store: false` works). Only the last response is kept, within a byte cap: one continuation
 * path per connection, as in OpenAI's mode.
 */

/** The connection's last completed response. */
export interface LastResponse {
  readonly id: string;
  /** Its whole input (already expanded) followed by its output items. */
  readonly items: readonly unknown[];
}

/** A Responses `input` as a list of items: a plain string is one user message. */
export function inputItems(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

/**
 * The request to serve: when it continues the connection's last response, its input is that
 * response's items followed by the new ones and `previous_response_id` goes; any other id is left
 * for the route to answer (a stored response upstream, or an error naming it).
 */
export function continueFrom(body: Record<string, unknown>, last: LastResponse | undefined): Record<string, unknown> {
  if (last === undefined || typeof body.previous_response_id !== 'string' || body.previous_response_id !== last.id) return body;
  // An input of another shape is left for the protocol's checks to refuse.
  if (body.input !== undefined && typeof body.input !== 'string' && !Array.isArray(body.input)) return body;
  const { previous_response_id: _continued, ...rest } = body;
  return { ...rest, input: [...last.items, ...inputItems(body.input)] };
}

/**
 * Follows one response's events for what the connection must remember: the output items as
 * each is done, and the id once the response completed. A response that fails leaves nothing,
 * so a request naming it is not served from a partial conversation.
 */
export class TurnFollower {
  private readonly output: unknown[] = [];
  private completed: { id: string; output: unknown } | undefined;
  private failed = false;

  constructor(private readonly input: readonly unknown[]) {}

  see(event: Record<string, unknown>): void {
    switch (event.type) {
      case 'response.output_item.done':
        this.output.push(event.item);
        return;
      case 'response.completed': {
        const response = event.response as Record<string, unknown> | undefined;
        if (response && typeof response.id === 'string') this.completed = { id: response.id, output: response.output };
        return;
      }
      case 'response.failed':
      case 'response.incomplete':
      case 'error':
        this.failed = true;
        return;
      default:
        return;
    }
  }

  /** What to remember once the turn ended: undefined when it did not complete, or when its items pass `maxBytes`. */
  remembered(maxBytes: number): LastResponse | undefined {
    if (this.failed || !this.completed) return undefined;
    // A stream without per-item events still names its output in the completed response.
    const output = this.output.length > 0 ? this.output : Array.isArray(this.completed.output) ? this.completed.output : [];
    const items = [...this.input, ...output];
    if (Buffer.byteLength(JSON.stringify(items)) > maxBytes) return undefined;
    return { id: this.completed.id, items };
  }
}
