/**
 * Which protocol a model is probed in: the one most of its callers reach it in, ties going to
 * the protocol translation prefers.
 */
import { describe, expect, it } from 'vitest';
import { ECHO_PROVIDER } from '../../test/helpers/echo-config.js';
import type { ModelConfig } from '../config/types.js';
import { PROTOCOLS, type Protocol } from '../protocols/types.js';
import { probeProtocol } from './probe.js';

const model = (protocols: readonly Protocol[]): ModelConfig => ({
  pattern: 'm',
  isGlob: false,
  provider: 'p',
  upstreamModel: undefined,
  protocols: new Set(protocols),
  features: new Set(),
  description: undefined,
  maxOutputTokens: undefined,
  displayName: undefined,
  contextWindow: undefined,
  countTokens: 'estimate',
  fallbacks: [],
});

describe('probeProtocol', () => {
  it.each([
    // provider speaks, model allows, probed in
    [PROTOCOLS, PROTOCOLS, 'responses'],
    [PROTOCOLS, ['chat'], 'chat'],
    [['chat'], PROTOCOLS, 'chat'],
    [['chat', 'messages'], PROTOCOLS, 'messages'],
    [['chat', 'messages'], ['chat'], 'chat'],
    [['chat', 'messages'], ['responses', 'chat'], 'messages'],
    [['chat', 'messages'], ['chat', 'messages'], 'messages'],
    [['responses', 'chat'], ['messages', 'chat'], 'responses'],
    [['responses', 'chat'], ['chat'], 'chat'],
    [['responses', 'messages'], ['chat'], 'responses'],
    [['responses', 'messages'], ['messages'], 'messages'],
    [['responses', 'messages', 'chat'], ['messages', 'chat'], 'messages'],
  ] as const)('a provider speaking %j, a model allowing %j: %s', (speaks, allows, expected) => {
    expect(probeProtocol(model(allows), { ...ECHO_PROVIDER, protocols: new Set(speaks) })).toBe(expected);
  });
});
