/**
 * Each protocol's codec, keyed by protocol: translation derives every caller → upstream pair from
 * this table (registry.ts) and replay reads recorded answers with it, so a new protocol is its
 * codec plus one line here.
 */
import type { Protocol } from '../protocols/types.js';
import { chatCodec } from '../protocols/chat/codec/codec.js';
import { messagesCodec } from '../protocols/messages/codec/codec.js';
import { responsesCodec } from '../protocols/responses/codec/codec.js';
import type { Codec } from './types.js';

export const codecs: Readonly<Record<Protocol, Codec>> = {
  chat: chatCodec,
  responses: responsesCodec,
  messages: messagesCodec,
};
