/**
 * `vertex`: Claude and Gemini on Google Cloud's Vertex AI, at Vertex's model URLs (endpoint.ts).
 * Claude is called in Anthropic's Messages API, its body in Vertex's envelope (claude-envelope.ts);
 * Gemini in Gemini's own protocol, its counts rewrapped (gemini-envelope.ts). Which one a model is
 * called in follows its id. Authenticated with Google OAuth tokens from a credentials file or
 * application default credentials (google-credentials.ts).
 */
import { z } from '../../config/zod.js';
import { ENV_REFERENCE_PATTERN } from '../../config/env.js';
import { httpUrl } from '../../config/provider-fields.js';
import { defineKind } from '../kind.js';
import { claudeEnvelope } from './claude-envelope.js';
import { PROJECT, REGION, regionBaseUrl, vertexModelProtocol } from './endpoint.js';
import { geminiEnvelope } from './gemini-envelope.js';
import { createVertexProvider } from './provider.js';

/** A `${NAME}` reference, which the JSON Schema accepts as written: the gateway checks the value it resolves to. */
const ENV_REFERENCE = ENV_REFERENCE_PATTERN;

export const vertex = defineKind({
  type: 'vertex',
  summary:
    "Claude and Gemini on Google Cloud's Vertex AI (Claude in Messages, models named gemini-* in Gemini's protocol); authenticated with Google credentials (a credentials file or application default credentials).",
  protocols: ['messages', 'gemini'],
  modelProtocols: (model) => [vertexModelProtocol(model)],
  fields: {
    region: z
      .string()
      .regex(REGION, 'must be a Google Cloud region such as "us-east5", a multi-region ("us", "eu") or "global"')
      .describe(
        'The Vertex AI location the models are called in: a region ("us-east5", "europe-west1"), a multi-region ("us", "eu") or "global". Required.',
      ),
    project: z
      .string()
      .regex(PROJECT, 'must be a Google Cloud project id such as "my-project"')
      .optional()
      .describe('The Google Cloud project id. Default: the project the credentials name (a service account key\'s project_id, or application default credentials\' project).'),
    credentialsFile: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Path to a Google credentials JSON file: a service account key, or gcloud\'s authorized-user file. Its token_uri is honoured. Default: application default credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud\'s login, the metadata server).',
      ),
    baseUrl: httpUrl()
      .optional()
      .describe(
        'Absolute http(s) base URL, without /v1 (a Private Service Connect endpoint, a proxy). Default: https://{region}-aiplatform.googleapis.com; https://aiplatform.googleapis.com for "global"; https://aiplatform.{us|eu}.rep.googleapis.com for the multi-regions.',
      ),
    apiKey: z
      .never({ error: 'Vertex AI takes no API key here: the gateway authenticates with Google credentials (credentialsFile, or application default credentials)' })
      .optional()
      .describe('Not used: Vertex AI takes Google OAuth tokens, from credentialsFile or application default credentials.'),
  },
  dialect: 'anthropic',
  baseUrl: (entry) => entry.baseUrl ?? regionBaseUrl(entry.region),
  jsonSchema: (entry) => {
    const properties = entry.properties as Record<string, Record<string, unknown>>;
    for (const field of ['region', 'project']) {
      const node = properties[field]!;
      const { pattern } = node;
      delete node.pattern;
      node.anyOf = [{ pattern }, { pattern: ENV_REFERENCE }];
    }
  },
  describe: {
    where: (config) => `${config.baseUrl} (${String(config.own.region)})`,
    credential: 'Authorization: Bearer (a Google OAuth token)',
    signsWith: (config) => `Google OAuth token (${typeof config.own.credentialsFile === 'string' ? 'credentialsFile' : 'application default credentials'})`,
  },
  // `countTokens` for Gemini models: a translated count asks Vertex rather than estimating.
  countsInputTokens: true,
  envelope: (_config, call) => (call.protocol === 'gemini' ? geminiEnvelope(call) : claudeEnvelope(call)),
  create: (config, deps) => createVertexProvider(config, deps),
});
