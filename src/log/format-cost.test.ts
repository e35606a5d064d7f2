import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { UNPRICED } from '../cost/price.js';
import { formatCost, formatLine, formatUsd } from './format.js';
import { newRecord } from './record.js';

describe('the cost on the log line', () => {
  it.each([
    [0, '$0'],
    [12.345, '$12.35'],
    [0.01, '$0.01'],
    [0.0123456, '$0.01'],
    [0.00123456, '$0.001235'],
    [0.0000004, '<$0.000001'],
  ])('%f dollars reads %s', (usd, text) => {
    expect(formatUsd(usd)).toBe(text);
  });

  it('says "no price" for a model without one, never zero, and nothing before the usage is known', () => {
    expect(formatCost(UNPRICED)).toBe('no price');
    expect(formatCost(undefined)).toBeUndefined();
    const record = newRecord('r', 0, 0, 'POST', '/v1/messages');
    record.usage = { inputTokens: 10, outputTokens: 2 };
    record.cost = UNPRICED;
    expect(formatLine(record, new Chalk({ level: 0 }))).toContain('no price');
    record.cost = { usd: 0.5, source: 'catalogue' };
    expect(formatLine(record, new Chalk({ level: 0 }))).toContain('$0.50');
  });
});
