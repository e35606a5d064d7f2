/**
 * IR stream events → a Gemini stream for a Gemini caller: one `data:` chunk (a whole
 * `GenerateContentResponse`) per piece of text or thought, a function call whole when its block
 * ends, and a last chunk with the finish reason and the usage. Signatures go on the next part sent
 * after their reasoning (encode-parts.ts); one left at the end rides on an empty text part, as
 * Gemini sends it. An IR error becomes Google's error object, which the SDK raises.
 * @see node_modules/@google/genai/dist/genai.d.ts (`GenerateContentResponse`)
 */
import type * as Ir from '../../../translate/ir.js';
import type { StreamEncoder } from '../../../translate/types.js';
import type { Json } from './read.js';
import { callForCaller, responseIdFor } from './encode-response.js';
import { reasoningParts, type Pending, takePending } from './encode-parts.js';
import { encodeFinishReason } from './finish-reasons.js';
import { geminiEntries, unplacedPart } from './signatures.js';
import { encodeUsage } from './usage.js';
import { type GenerateContentResponse, type Part, sse } from './wire.js';

type Block =
  | { readonly kind: 'text' }
  | {
      readonly kind: 'reasoning';
      text: string;
      summary: string[];
      signature: string;
      encrypted?: string;
      redacted?: string;
      id?: string;
      details?: readonly Json[];
      /** Thought text was sent already. */
      shown: boolean;
    }
  | { readonly kind: 'tool'; readonly call: Omit<Ir.ToolCallPart, 'arguments' | 'type'>; args: string };

/** Google's error status and HTTP code for an upstream's in-band error type. */
function googleError(type: string | undefined): { code: number; status: string } {
  switch (type) {
    case 'rate_limit_error':
    case 'rate_limit_exceeded':
    case 'RESOURCE_EXHAUSTED':
      return { code: 429, status: 'RESOURCE_EXHAUSTED' };
    case 'overloaded_error':
    case 'server_is_overloaded':
    case 'service_unavailable_error':
    case 'UNAVAILABLE':
      return { code: 503, status: 'UNAVAILABLE' };
    case 'invalid_request_error':
    case 'INVALID_ARGUMENT':
      return { code: 400, status: 'INVALID_ARGUMENT' };
    default:
      return { code: 500, status: 'INTERNAL' };
  }
}

export function createStreamEncoder(ctx: Ir.TranslateContext): StreamEncoder {
  let id = '';
  let block: Block | undefined;
  let done = false;
  let out = '';
  const pending: Pending = { tokens: [] };
  const byCall = new Map<string, string>();

  const chunk = (parts: Part[], last?: Pick<GenerateContentResponse, 'usageMetadata'> & { finishReason: ReturnType<typeof encodeFinishReason> }) => {
    const body: GenerateContentResponse = {
      candidates: [{ content: { role: 'model', parts }, ...(last ? { finishReason: last.finishReason } : {}), index: 0 }],
      ...(last?.usageMetadata ? { usageMetadata: last.usageMetadata } : {}),
      modelVersion: ctx.requestedModel,
      responseId: id,
    };
    out += sse(body);
  };

  /** A part that is no thought: the signature waiting for it goes on it. */
  const send = (part: Part, signature = takePending(pending)) => chunk([signature !== undefined ? { ...part, thoughtSignature: signature } : part]);

  function showThought(b: Extract<Block, { kind: 'reasoning' }>, text: string): void {
    if (text === '') return;
    b.shown = true;
    chunk([{ text, thought: true }]);
  }

  function closeReasoning(b: Extract<Block, { kind: 'reasoning' }>): void {
    const part: Ir.ReasoningPart = {
      type: 'reasoning',
      text: b.text,
      ...(b.summary.length > 0 ? { summary: b.summary } : {}),
      ...(b.signature ? { signature: b.signature } : {}),
      ...(b.encrypted !== undefined ? { encrypted: b.encrypted } : {}),
      ...(b.redacted !== undefined ? { redacted: b.redacted } : {}),
      ...(b.id !== undefined ? { id: b.id } : {}),
      ...(b.details !== undefined ? { details: b.details } : {}),
    };
    for (const e of geminiEntries(part)) if (typeof e.id === 'string') byCall.set(e.id, e.data as string);
    // The thought text was shown as it came: only the signatures are left, for the next part.
    // Signed or sealed, the whole part: only where its signatures go depends on what was shown.
    reasoningParts(unplacedPart({ ...part, text: '', summary: [] }, () => true), 'answer', pending, ctx, part);
  }

  function closeBlock(): void {
    const b = block;
    block = undefined;
    if (b?.kind === 'reasoning') closeReasoning(b);
    else if (b?.kind === 'tool') {
      const call = callForCaller({ type: 'tool_call', ...b.call, arguments: b.args }, ctx);
      send({ functionCall: call }, byCall.get(b.call.id) ?? takePending(pending));
    }
  }

  function delta(d: Ir.BlockDelta): void {
    if (!block) return;
    if (block.kind === 'text' && (d.type === 'text' || d.type === 'refusal')) {
      if (d.text !== '') send({ text: d.text });
    } else if (block.kind === 'reasoning') {
      switch (d.type) {
        case 'reasoning':
          block.text += d.text;
          showThought(block, d.text);
          break;
        case 'reasoning_summary': {
          const before = block.summary[d.summaryIndex];
          block.summary[d.summaryIndex] = (before ?? '') + d.text;
          // A new summary part starts a paragraph of its own.
          showThought(block, before === undefined && block.shown ? `\n\n${d.text}` : d.text);
          break;
        }
        case 'signature':
          block.signature += d.signature;
          break;
        case 'encrypted':
          block.encrypted = d.encrypted;
          break;
        case 'details':
          block.details = d.details;
          break;
        default:
      }
    } else if (block.kind === 'tool' && d.type === 'arguments') block.args += d.text;
  }

  function finish(ev: Extract<Ir.StreamEvent, { type: 'finish' }>): void {
    closeBlock();
    const parts: Part[] = [];
    for (let signature = takePending(pending); signature !== undefined; signature = takePending(pending)) parts.push({ text: '', thoughtSignature: signature });
    chunk(parts.length > 0 ? parts : [{ text: '' }], { finishReason: encodeFinishReason(ev.stopReason), usageMetadata: encodeUsage(ev.usage) });
    done = true;
  }

  function handle(ev: Ir.StreamEvent): void {
    switch (ev.type) {
      case 'start':
        id = responseIdFor(ev.id, ctx);
        return;
      case 'block_start':
        closeBlock();
        if (ev.block.type === 'text' || ev.block.type === 'refusal') block = { kind: 'text' };
        else if (ev.block.type === 'reasoning') {
          block = {
            kind: 'reasoning',
            text: '',
            summary: [],
            signature: '',
            shown: false,
            ...(ev.block.encrypted !== undefined ? { encrypted: ev.block.encrypted } : {}),
            ...(ev.block.redacted !== undefined ? { redacted: ev.block.redacted } : {}),
            ...(ev.block.id !== undefined ? { id: ev.block.id } : {}),
          };
        } else {
          const { type: _type, ...call } = ev.block;
          block = { kind: 'tool', call, args: '' };
        }
        return;
      case 'block_delta':
        delta(ev.delta);
        return;
      case 'block_stop':
        closeBlock();
        return;
      case 'finish':
        finish(ev);
        return;
      case 'error': {
        const { code, status } = googleError(ev.errorType);
        out += sse({ error: { code, message: ev.message, status } });
        done = true;
      }
    }
  }

  return {
    push(ev) {
      if (done) return '';
      out = '';
      if (id === '' && ev.type !== 'start') id = responseIdFor('', ctx);
      handle(ev);
      return out;
    },
    end: () => '',
  };
}
