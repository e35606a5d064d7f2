import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { UpstreamResponse } from '../../providers/types.js';
import type { TranslateContext } from '../../translate/ir.js';
import { translatorFor } from '../../translate/registry.js';
import type { Translation } from './context.js';
import { translatedHeaders } from './translated.js';

function answer(headers: UpstreamResponse['headers']): UpstreamResponse {
  return { status: 200, headers, body: Readable.from([]) };
}

function translation(warnings: string[]): Translation {
  const ctx = { caller: 'messages', upstream: 'chat', warnings } as Partial<TranslateContext> as TranslateContext;
  return { translator: translatorFor('messages', 'chat')!, ctx, callerBody: {}, stream: false, keep: undefined };
}

describe('translatedHeaders', () => {
  it.each([
    [
      'the upstream ids and hints pass, its content type and other headers do not',
      { 'content-type': 'text/event-stream', 'x-request-id': 'req_1', 'x-ratelimit-remaining-requests': '9', 'set-cookie': 'a=b' },
      [],
      { 'x-request-id': 'req_1', 'x-ratelimit-remaining-requests': '9', 'x-model-gateway-translated': 'messages->chat', 'content-type': 'application/json' },
    ],
    [
      'what was dropped, each phrase once, in visible ASCII',
      {},
      ['logprobs', 'max tokens capped to 10', 'logprobs', 'caf\u00e9'],
      {
        'x-model-gateway-translated': 'messages->chat',
        'x-model-gateway-dropped': 'logprobs, max tokens capped to 10, caf?',
        'content-type': 'application/json',
      },
    ],
  ])('%s', (_name, upstream, warnings, expected) => {
    expect(translatedHeaders(answer(upstream), translation(warnings), 'application/json')).toEqual(expected);
  });

  it('counts what was dropped up to the head, including what reading the answer dropped', () => {
    const t = translation(['logprobs']);
    t.ctx.warnings.push('invalid tool-call JSON kept as _raw');
    expect(translatedHeaders(answer({}), t, 'application/json')['x-model-gateway-dropped']).toBe('logprobs, invalid tool-call JSON kept as _raw');
  });
});
