/** The translator for each ordered pair of different protocols. */
import type { Protocol } from '../protocols/types.js';
import { chatToMessages } from './chat-to-messages.js';
import { chatToResponses } from './chat-to-responses.js';
import { messagesToChat } from './messages-to-chat.js';
import { messagesToResponses } from './messages-to-responses.js';
import { responsesToChat } from './responses-to-chat.js';
import { responsesToMessages } from './responses-to-messages.js';
import type { Translator } from './translator.js';

type Pair = { [C in Protocol]: { [U in Exclude<Protocol, C>]: `${C}->${U}` }[Exclude<Protocol, C>] }[Protocol];

const translators = {
  'chat->messages': chatToMessages,
  'chat->responses': chatToResponses,
  'messages->chat': messagesToChat,
  'messages->responses': messagesToResponses,
  'responses->chat': responsesToChat,
  'responses->messages': responsesToMessages,
} as const satisfies Record<Pair, Translator>;

export function translatorFor(caller: Protocol, upstream: Protocol): Translator | undefined {
  return caller === upstream ? undefined : translators[`${caller}->${upstream}` as Pair];
}
