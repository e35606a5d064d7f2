import { describe, expect, it } from 'vitest';
import type { BodyJson } from '../log/exchange-json.js';
import { compareAnswers } from './compare.js';

const chat = (text: string, id = 'c1'): BodyJson => ({
  bytes: 1,
  json: { id, object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] },
});
const stream = (...types: string[]): BodyJson => ({ bytes: 1, events: types.map((type) => ({ t: 1, event: type, data: { type } })) });

describe('compareAnswers', () => {
  it.each([
    ['same status and body', chat('Hi'), 200, chat('Hi', 'c2'), 200, []],
    ['another text only (shown, not judged)', chat('Hi'), 200, chat('Bye'), 200, []],
    ['another status', chat('Hi'), 200, { bytes: 1, json: { error: { message: 'x', type: 'api_error' } } }, 502, ['status 200 → 502']],
    ['a stream with its end', stream('message_start', 'message_stop'), 200, stream('message_start', 'message_stop'), 200, []],
    ['a stream without its end', stream('message_start', 'message_stop'), 200, stream('message_start'), 200, ['the stream did not end with its end event']],
    ['JSON where a stream was recorded', stream('message_start', 'message_stop'), 200, chat('Hi'), 200, ['the answer is not a stream']],
    ['a stream where JSON was recorded', chat('Hi'), 200, stream('message_start', 'message_stop'), 200, ['the answer is a stream where JSON was recorded']],
  ] as const)('%s', (_name, recordedBody, recordedStatus, replayedBody, replayedStatus, problems) => {
    const path = recordedBody.events ? '/v1/messages' : '/v1/chat/completions';
    const cmp = compareAnswers(path, { status: recordedStatus, body: recordedBody }, { status: replayedStatus, body: replayedBody });
    expect(cmp.problems).toEqual(problems);
  });

  it('lists body differences without ids, and summarises both answers', () => {
    const cmp = compareAnswers('/v1/chat/completions', { status: 200, body: chat('Hi') }, { status: 200, body: chat('Bye', 'c9') });
    expect(cmp.differences).toEqual([{ path: 'choices[0].message.content', kind: 'changed', before: 'Hi', after: 'Bye' }]);
    expect(cmp.summaries?.recorded.text).toBe('Hi');
    expect(cmp.summaries?.replayed.text).toBe('Bye');
  });

  it('compares other endpoints by status and body alone', () => {
    const cmp = compareAnswers('/v1/models', { status: 200, body: { bytes: 1, json: { data: [{ id: 'a' }] } } }, { status: 200, body: { bytes: 1, json: { data: [] } } });
    expect(cmp.summaries).toBeUndefined();
    expect(cmp.differences).toEqual([{ path: 'data[0]', kind: 'removed', before: { id: 'a' } }]);
    expect(cmp.problems).toEqual([]);
  });

  it('reports an answer that broke off', () => {
    const cmp = compareAnswers('/v1/chat/completions', { status: 200, body: chat('Hi') }, { status: 200, body: chat('Hi'), error: 'UND_ERR_SOCKET' });
    expect(cmp.problems).toEqual(['the answer broke off: UND_ERR_SOCKET']);
  });
});
