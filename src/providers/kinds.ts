/**
 * Every provider kind, registered once. A new kind is a folder `providers/<type>/` with its
 * `kind.ts` (see kind.ts) and one line here; the config schema, its rules, the JSON Schema,
 * `check`, the banner and `createProviders` take it from this list.
 */
import { anthropic } from './anthropic/kind.js';
import { azureOpenAi } from './azure-openai/kind.js';
import { bedrock } from './bedrock/kind.js';
import { echo } from './echo/kind.js';
import { foundry } from './foundry/kind.js';
import { gemini } from './gemini/kind.js';
import type { ProviderKind } from './kind.js';
import { openAiCompatible } from './openai-compatible/kind.js';
import { openai } from './openai/kind.js';
import { vertex } from './vertex/kind.js';

export const PROVIDER_KINDS = [openai, anthropic, openAiCompatible, echo, azureOpenAi, foundry, vertex, bedrock, gemini] as const;

export type ProviderType = (typeof PROVIDER_KINDS)[number]['type'];

const byType = new Map<string, ProviderKind>(PROVIDER_KINDS.map((kind) => [kind.type, kind as unknown as ProviderKind]));

/** The kind of a `type` the schema accepted. */
export function providerKind(type: string): ProviderKind {
  const kind = byType.get(type);
  if (!kind) throw new Error(`no provider kind "${type}"`);
  return kind;
}

/** The kind of a `type` as written, which the schema has not checked yet; undefined for an unknown one. */
export const knownKind = (type: string): ProviderKind | undefined => byType.get(type);
