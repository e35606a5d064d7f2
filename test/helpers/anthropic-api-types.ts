/**
 * The official Anthropic SDK's response types, adjusted where the API itself sends less than they say:
 * the SDK types a text block's `citations` as always there (`null` when none), but the API leaves the
 * field out of a text block that cites nothing, and strict clients (the Vercel AI SDK) reject the `null`.
 * Type drift tests hold the codec's shapes against these.
 */
import type Anthropic from '@anthropic-ai/sdk';

type CitationsOptional<T> = T extends Anthropic.TextBlock ? Omit<T, 'citations'> & { citations?: T['citations'] } : T;

export type ApiMessage = Omit<Anthropic.Message, 'content'> & { content: CitationsOptional<Anthropic.ContentBlock>[] };

export type ApiStreamEvent =
  | Exclude<Anthropic.RawMessageStreamEvent, Anthropic.RawMessageStartEvent | Anthropic.RawContentBlockStartEvent>
  | (Omit<Anthropic.RawMessageStartEvent, 'message'> & { message: ApiMessage })
  | (Omit<Anthropic.RawContentBlockStartEvent, 'content_block'> & {
      content_block: CitationsOptional<Anthropic.RawContentBlockStartEvent['content_block']>;
    });
