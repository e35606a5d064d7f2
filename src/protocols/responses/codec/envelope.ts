/**
 * The Response object around the output items: the complete answer, the
 * stream's snapshots (`response.created`, `response.completed`, …) and the
 * failed response all share it. The request fields a Response echoes are
 * required (nullable) in the SDK types and strict clients reject their absence,
 * so they come from the caller's request, with the API's defaults.
 * @see src/protocols/responses/codec/sdk.test.ts (the official SDK reads what this writes)
 */
import { callerResponseId } from '../../../translate/common/ids.js';
import type { Json } from '../../shallow.js';
import type { TranslateContext } from '../../../translate/ir.js';

export interface EnvelopeFields {
  readonly id: string;
  readonly created: number;
  readonly status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  readonly output: readonly Json[];
  readonly usage: Json | null;
  readonly incompleteDetails?: Json | null;
  readonly error?: Json | null;
}

const given = (v: unknown, fallback: unknown): unknown => v ?? fallback;

export function envelope(ctx: TranslateContext, callerBody: Json, f: EnvelopeFields): Json {
  return {
    id: f.id,
    object: 'response',
    created_at: f.created,
    status: f.status,
    background: false,
    error: f.error ?? null,
    incomplete_details: f.incompleteDetails ?? null,
    instructions: given(callerBody.instructions, null),
    max_output_tokens: given(callerBody.max_output_tokens, null),
    metadata: given(callerBody.metadata, {}),
    model: ctx.requestedModel,
    output: f.output,
    parallel_tool_calls: given(callerBody.parallel_tool_calls, true),
    previous_response_id: ctx.stored && typeof callerBody.previous_response_id === 'string' ? callerBody.previous_response_id : null,
    reasoning: given(callerBody.reasoning, { effort: null, summary: null }),
    // Kept only where the gateway stores it for later references (src/responses-store).
    store: ctx.stored === true,
    temperature: given(callerBody.temperature, null),
    text: given(callerBody.text, { format: { type: 'text' } }),
    tool_choice: given(callerBody.tool_choice, 'auto'),
    tools: given(callerBody.tools, []),
    top_p: given(callerBody.top_p, null),
    truncation: given(callerBody.truncation, 'disabled'),
    usage: f.usage,
    ...(typeof callerBody.user === 'string' ? { user: callerBody.user } : {}),
    ...(typeof callerBody.safety_identifier === 'string' ? { safety_identifier: callerBody.safety_identifier } : {}),
  };
}

/** The response id a Responses caller sees: the IR's, or a fresh one. */
export const responseId = (id: string, ctx: TranslateContext): string => callerResponseId('resp_', id, ctx);
