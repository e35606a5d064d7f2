/**
 * `bedrock`: Amazon Bedrock. Claude through InvokeModel and InvokeModelWithResponseStream (the
 * Messages body in Bedrock's envelope: envelope.ts; event-stream answers as server-sent events:
 * answer.ts), CountTokens, and with `protocols: ["chat"]` Bedrock's OpenAI-compatible Chat
 * Completions for its other models. Signed with SigV4 and the AWS credential chain (sign.ts), or
 * sent with a Bedrock API key as a bearer token.
 */
import { z } from '../../config/zod.js';
import { httpUrl } from '../../config/provider-fields.js';
import type { ProviderConfig } from '../../config/types.js';
import { GatewayError } from '../../errors.js';
import { createHttpProvider, transportError, type HttpHooks } from '../http.js';
import { defineKind } from '../kind.js';
import { bedrockAnswer, bedrockStreamBody } from './answer.js';
import { bedrockEnvelope } from './envelope.js';
import { bedrockHttpError } from './errors.js';
import { UnreadableAnswer } from './event-stream.js';
import { runtimeBaseUrl } from './region.js';
import { sigV4 } from './sign.js';
import { bedrockUrl } from './url.js';

// AWS region names: lower-case letters, digits and hyphens (us-east-1, eu-central-2, us-gov-west-1).
const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d+$/;

function hooks(config: ProviderConfig): HttpHooks {
  const region = typeof config.own.region === 'string' ? config.own.region : undefined;
  const signed = config.apiKey === undefined || config.apiKey === '';
  if (signed && region === undefined) throw new Error(`providers.${config.id}: no AWS region to sign for`);
  return {
    url: bedrockUrl,
    urlPerCall: true,
    credential: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
    ...(signed ? { sign: sigV4(config, region!) } : {}),
    answer: bedrockAnswer,
    streamBody: bedrockStreamBody,
    toError: bedrockHttpError,
    transportError: (err, provider, signal) => {
      if (err instanceof UnreadableAnswer && !signal?.aborted) {
        return new GatewayError('upstream_error', `Provider '${provider.id}' sent an answer the gateway cannot read: ${err.message}.`, { cause: err });
      }
      return transportError(err, provider, signal);
    },
  };
}

export const bedrock = defineKind({
  type: 'bedrock',
  summary: 'Amazon Bedrock: Claude through InvokeModel (Messages), and its OpenAI-compatible Chat Completions; SigV4 or a Bedrock API key.',
  protocols: ['messages'],
  fields: {
    region: z
      .string()
      .regex(REGION, 'must be an AWS region name, such as us-east-1')
      .optional()
      .describe('The AWS region (us-east-1, eu-central-1, ...). Default: AWS_REGION, else AWS_DEFAULT_REGION, read when the config is loaded.'),
    profile: z
      .string()
      .min(1)
      .optional()
      .describe('A profile of the shared AWS config and credentials files to sign with. Default: the standard credential chain (environment, AWS_PROFILE, SSO, web identity, container or instance role).'),
    apiKey: z
      .string()
      .optional()
      .describe('An Amazon Bedrock API key, usually "${AWS_BEARER_TOKEN_BEDROCK}": sent as Authorization: Bearer instead of signing with AWS credentials.'),
    baseUrl: httpUrl()
      .optional()
      .describe('Absolute http(s) endpoint of Bedrock Runtime (a VPC endpoint, a proxy). Default: https://bedrock-runtime.{region}.amazonaws.com.'),
  },
  dialect: 'anthropic',
  baseUrl: (entry) => {
    if (entry.baseUrl !== undefined) return entry.baseUrl;
    return entry.region === undefined ? undefined : runtimeBaseUrl(entry.region);
  },
  rules: (entry) => {
    // A signature names its region; so does the default endpoint.
    const needsRegion = entry.baseUrl === undefined || entry.apiKey === undefined || entry.apiKey === '';
    if (needsRegion && entry.region === undefined) {
      return [{ path: ['region'], message: 'required: the AWS region, here or in AWS_REGION / AWS_DEFAULT_REGION' }];
    }
    return [];
  },
  describe: {
    where: (config) => config.baseUrl,
    credential: 'Authorization: Bearer, else AWS SigV4',
    signsWith: (config) => `AWS SigV4 (${typeof config.own.profile === 'string' ? `profile ${config.own.profile}` : 'the AWS credential chain'})`,
  },
  fromEnv: { region: ['AWS_REGION', 'AWS_DEFAULT_REGION'] },
  credentialFields: ['profile'],
  envelope: (_config, call) => bedrockEnvelope(call),
  create: (config, deps) => createHttpProvider(config, hooks(config), deps),
});
