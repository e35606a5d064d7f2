/**
 * An exchange as a conversation, for the page's default view: the client's request and the answer
 * it received, read with the gateway's own codecs (`protocols/<p>/codec/`) into the intermediate
 * form, whatever the caller's protocol, a streamed answer folded into its parts
 * (`translate/read-answer.ts`). Built on the server when an exchange is opened: the page then needs no codec of its own, and one renderer serves all
 * four protocols. What the codecs cannot read is said, and the raw view still has it.
 */
import type { ExchangeJson } from '../log/exchange-json.js';
import { protocolEndpointAt } from '../protocols/endpoints.js';
import type { Json } from '../protocols/json.js';
import { codecs } from '../translate/codecs.js';
import { readAnswer, readingContext } from '../translate/read-answer.js';
import type { Conversation } from './common/types.js';

/** The conversation of a create request; undefined for other endpoints (models, count_tokens, health). */
export function conversationOf(x: ExchangeJson): Conversation | undefined {
  const endpoint = protocolEndpointAt(x.path.split('?', 1)[0]!);
  if (endpoint?.operation !== 'create' || !x.request) return undefined;
  const { protocol } = endpoint;
  const model = typeof endpoint.params.model === 'string' ? endpoint.params.model : (x.model ?? '');
  const stream = endpoint.stream || x.stream === true;
  const out: { -readonly [K in keyof Conversation]: Conversation[K] } = { protocol, system: [], messages: [], tools: [] };
  const body = x.request.body;
  if (body.json === undefined) {
    out.unreadable = body.truncated ? 'the request was cut at the capture limit' : 'the request is not JSON';
  } else {
    try {
      const request = codecs[protocol].decodeRequest(body.json as Json, readingContext(protocol, model, stream));
      out.system = request.system.map((p) => p.text);
      out.messages = request.messages;
      out.tools = request.tools.map((t) => (t.namespace ? `${t.namespace}.${t.name}` : t.name));
    } catch (err) {
      out.unreadable = `the ${protocol} request could not be read: ${(err as Error).message}`;
    }
  }
  const answer = x.response ? readAnswer(protocol, x.response.body, x.response.status) : undefined;
  return answer ? { ...out, answer } : out;
}
