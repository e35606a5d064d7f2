import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { commandAlone, UnreadableReply } from './redis-errors.js';

describe('which failures of a Redis command are its own', () => {
  it.each<[string, unknown, boolean]>([
    ['a key of the wrong type', new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'), true],
    ['a script stopped on a value', new ReplyError('ERR user_script:12: Script attempted to access nonexistent global variable'), true],
    ['a reply the store cannot read', new UnreadableReply('admission'), true],
    ['Redis loading its data', new ReplyError('LOADING Redis is loading the dataset in memory'), false],
    ['a replica refusing writes', new ReplyError("READONLY You can't write against a read only replica."), false],
    ['memory full', new ReplyError("OOM command not allowed when used memory > 'maxmemory'."), false],
    ['a long script running', new ReplyError('BUSY Redis is busy running a script.'), false],
    ['a lost password', new ReplyError('NOAUTH Authentication required.'), false],
    ['a command timed out', new Error('Command timed out'), false],
    ['the connection closed', new Error('Connection is closed.'), false],
    ['an error that only says ERR', Object.assign(new Error('ERR something'), { name: 'Error' }), false],
    ['something thrown that is no error', 'WRONGTYPE', false],
  ])('%s: %s', (_, err, alone) => {
    expect(commandAlone(err)).toBe(alone);
  });
});
