/**
 * `generationConfig.thinkingConfig` ⇄ IR reasoning. Gemini 2.5 models take a token budget
 * (`thinkingBudget`: 0 off, -1 dynamic); Gemini 3 models take a level (`thinkingLevel`) and cannot
 * turn thinking off. `includeThoughts` asks for thought summaries, which the IR asks as a
 * reasoning summary. The budgets per effort are a policy choice, like Anthropic's
 * (messages/codec/reasoning.ts), within each model's range.
 */
import type * as Ir from '../../../translate/ir.js';
import { effortForBudget } from '../../messages/codec/reasoning.js';
import { isObject, num, str, warn } from './read.js';
import type { GenerationConfig, ThinkingLevel } from './wire.js';

const LEVEL_EFFORT = { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high' } as const satisfies Record<ThinkingLevel, Ir.ReasoningEffort>;

const isLevel = (v: unknown): v is ThinkingLevel => typeof v === 'string' && Object.hasOwn(LEVEL_EFFORT, v);

/** `thinkingBudget` -1: the model decides how much to think. */
const DYNAMIC = -1;

export function decodeThinking(config: unknown, ctx: Ir.TranslateContext): Ir.ReasoningRequest | undefined {
  if (!isObject(config)) return undefined;
  const budget = num(config.thinkingBudget);
  const level = str(config.thinkingLevel);
  const summary = config.includeThoughts === true ? { summary: 'auto' } : {};
  if (level !== undefined && isLevel(level)) return { effort: LEVEL_EFFORT[level], ...summary };
  if (level !== undefined && level !== 'THINKING_LEVEL_UNSPECIFIED') warn(ctx, `thinkingLevel ${level}`);
  if (budget === 0) return { effort: 'none' };
  if (budget === DYNAMIC) return { effort: 'medium', ...summary };
  if (budget !== undefined && budget > 0) return { effort: effortForBudget(budget), budgetTokens: budget, ...summary };
  return config.includeThoughts === true ? summary : undefined;
}

/** Budgets per effort for budget-taking models; Gemini 2.5 Flash takes up to 24576, Pro up to 32768. */
const BUDGETS = { minimal: 512, low: 1024, medium: 8192, high: 24576, xhigh: 32768, max: 32768 } as const;
const FLASH_MAX = 24576;
/** Gemini 2.5 Pro cannot turn thinking off; 128 is its least. */
const PRO_MIN = 128;

/** The model generation: 3 and later take levels. */
function takesLevels(model: string): boolean {
  const m = /gemini-(\d+)/i.exec(model);
  return m !== null && Number(m[1]) >= 3;
}

/** A level Gemini 3 takes for an effort: Pro models have only LOW and HIGH, Flash models all four. */
function levelFor(effort: Ir.ReasoningEffort, model: string, ctx: Ir.TranslateContext): ThinkingLevel {
  const flash = /flash/i.test(model);
  switch (effort) {
    case 'none':
      warn(ctx, 'reasoning off (model always thinks)');
      return flash ? 'MINIMAL' : 'LOW';
    case 'minimal':
      return flash ? 'MINIMAL' : 'LOW';
    case 'low':
      return 'LOW';
    case 'medium':
      return flash ? 'MEDIUM' : 'HIGH';
    case 'high':
    case 'xhigh':
    case 'max':
      return 'HIGH';
  }
}

export function encodeThinking(reasoning: Ir.ReasoningRequest | undefined, ctx: Ir.TranslateContext): GenerationConfig['thinkingConfig'] {
  if (reasoning === undefined) return undefined;
  const model = ctx.upstreamModel;
  const effort = reasoning.effort ?? (reasoning.budgetTokens !== undefined ? effortForBudget(reasoning.budgetTokens) : undefined);
  if (effort === undefined) return reasoning.summary !== undefined ? { includeThoughts: true } : undefined;
  if (takesLevels(model)) return { thinkingLevel: levelFor(effort, model, ctx), ...(effort !== 'none' ? { includeThoughts: true } : {}) };
  if (effort === 'none') {
    if (!/pro/i.test(model)) return { thinkingBudget: 0 };
    warn(ctx, 'reasoning off (model always thinks)');
    return { thinkingBudget: PRO_MIN };
  }
  const wanted = reasoning.budgetTokens ?? BUDGETS[effort];
  return { thinkingBudget: /flash/i.test(model) ? Math.min(wanted, FLASH_MAX) : wanted, includeThoughts: true };
}
