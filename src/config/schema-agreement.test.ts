/**
 * schema/gateway.schema.json (what editors check) and `parseConfig` (what the gateway checks) agree: the same
 * configs through both, through Ajv, a JSON Schema validator independent of zod. Rules a JSON Schema cannot
 * state are listed at the end with the reason, and checked to still be the only disagreements.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { defaultWrittenConfig } from './default.js';
import { hashKey } from './keys.js';
import { parseConfig } from './parse.js';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

const schema = JSON.parse(read('schema/gateway.schema.json')) as { $schema?: string };
// Ajv's default strict mode: an unknown keyword or format in the schema is an error rather than ignored.
const ajv = new Ajv2020({ allErrors: true });
// A CommonJS module whose types declare an ES default: the plugin is its `default`.
ajvFormats.default(ajv);
const validate = ajv.compile(schema);

/** Every variable the configs below reference, set to a value valid where it is used. */
const ENV = {
  AZURE_TENANT_ID: 'contoso.onmicrosoft.com',
  OPENAI_API_KEY: 'sk-openai',
  ANTHROPIC_API_KEY: 'sk-anthropic',
  OPENROUTER_API_KEY: 'sk-openrouter',
  GATEWAY_KEY: 'gateway-key',
  LOCAL_URL: 'http://127.0.0.1:11434/v1',
  LOCAL_HOST: '127.0.0.1',
  PROVIDER_TYPE: 'echo',
  CLOUD_ML_REGION: 'us-east5',
  REDIS_URL: 'rediss://default:secret@redis.internal:6380/2',
};

const DIGEST = 'ab'.repeat(32);
const echo = { providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } } };
/** The echo config with `patch` merged into one section. */
const withSection = (section: string, patch: Record<string, unknown>) => ({
  ...echo,
  [section]: { ...(echo as Record<string, Record<string, unknown> | undefined>)[section], ...patch },
});
const withGroup = (group: Record<string, unknown>) => ({ ...echo, keyGroups: { dev: { keys: ['k-1'], ...group } } });
const withProvider = (provider: Record<string, unknown>) => withSection('providers', { p: provider });

/** The gateway's verdict: undefined when valid, else the ConfigError text. */
function gatewayProblems(config: unknown): string | undefined {
  try {
    parseConfig(config, { env: ENV });
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
}

/** Where Ajv puts each problem, as a JSON pointer including the offending property name. */
function schemaProblems(config: unknown): string[] | undefined {
  if (validate(config)) return undefined;
  return (validate.errors ?? []).map((e: ErrorObject) => {
    const p = e.params as { additionalProperty?: string; missingProperty?: string };
    const name = p.additionalProperty ?? p.missingProperty ?? (e.propertyName as string | undefined);
    return name === undefined ? e.instancePath : `${e.instancePath}/${name}`;
  });
}

interface Case {
  readonly name: string;
  readonly config: unknown;
  /** For an invalid config: where it is wrong (a JSON pointer Ajv must report under)... */
  readonly pointer?: string;
  /** ...and what the gateway says about it. */
  readonly problem?: RegExp;
}

const valid: readonly Case[] = [
  { name: 'gateway.config.example.json', config: JSON.parse(read('gateway.config.example.json')) },
  { name: 'the built-in default config', config: defaultWrittenConfig({}).written },
  { name: 'the smallest config: one echo provider and model', config: echo },
  { name: 'state shared through Redis, every field', config: { ...echo, state: { redis: 'redis://:pw@127.0.0.1:6379/0', keyPrefix: 'team-a:', onRedisDown: { limits: 'closed', budgets: 'open' }, commandTimeoutMs: 250 } } },
  { name: 'state: a TLS Redis URL from the environment', config: { ...echo, state: { redis: '${REDIS_URL}' } } },
  { name: 'state: an IPv6 Redis host', config: { ...echo, state: { redis: 'redis://[::1]:6379' } } },
  {
    name: 'every field set',
    config: {
      $schema: './schema/gateway.schema.json',
      server: { host: '0.0.0.0', port: 0, maxBodyBytes: 1024 },
      providers: {
        local: {
          type: 'openai-compatible',
          baseUrl: 'http://[::1]:8000/v1',
          apiKey: 'sk-local',
          headers: { 'X-Title': 'model-gateway', 'x-empty': '' },
          protocols: ['chat', 'responses'],
          timeouts: { connectMs: 1, headersMs: 2, idleMs: 3 },
        },
        claude: { type: 'anthropic', baseUrl: 'HTTPS://proxy.example.com' },
      },
      models: {
        'qwen?-coder*': {
          provider: 'local',
          upstreamModel: 'qwen2.5-coder:7b',
          protocols: ['chat'],
          features: [],
          description: 'local',
          maxOutputTokens: 8192,
        },
        'claude-sonnet': { provider: 'claude' },
      },
      keyGroups: {
        dev: { keys: ['plain-key', `SHA256:${DIGEST.toUpperCase()}`, { name: 'alice', key: 'alice-key' }], models: ['qwen*'] },
        ci: { keys: [], models: ['claude-sonnet'], protocols: ['messages'], features: ['streaming'] },
      },
    },
  },
  { name: 'an azure-openai provider by resource name', config: withProvider({ type: 'azure-openai', resource: 'contoso', apiKey: 'k' }) },
  { name: 'an azure-openai provider by base URL', config: withProvider({ type: 'azure-openai', baseUrl: 'https://contoso.openai.azure.com/openai/v1' }) },
  { name: 'a bedrock provider signing with a profile', config: withProvider({ type: 'bedrock', region: 'us-east-1', profile: 'bedrock' }) },
  { name: 'a bedrock provider with an API key at a VPC endpoint', config: withProvider({ type: 'bedrock', region: 'eu-central-1', apiKey: 'k', baseUrl: 'https://vpce-0abc.bedrock-runtime.eu-central-1.vpce.amazonaws.com' }) },
  { name: "a bedrock provider on Bedrock's Chat Completions", config: withProvider({ type: 'bedrock', region: 'us-west-2', protocols: ['chat'] }) },
  { name: 'an azure-openai provider in the deployment form', config: withProvider({ type: 'azure-openai', resource: 'contoso', apiVersion: '2025-04-01-preview', apiKey: 'k' }) },
  {
    name: 'an azure-openai provider with one deployment',
    config: withProvider({ type: 'azure-openai', baseUrl: 'https://contoso.openai.azure.com', apiVersion: '2024-10-21', deployment: 'd', protocols: ['chat'] }),
  },
  {
    name: 'an azure-openai provider with Microsoft Entra ID',
    config: withProvider({ type: 'azure-openai', resource: 'contoso', tenantId: '${AZURE_TENANT_ID}', clientId: 'c', clientSecret: 's', authorityHost: 'https://login.microsoftonline.us' }),
  },
  { name: 'a foundry provider by resource name', config: withProvider({ type: 'foundry', resource: 'contoso', apiKey: 'k' }) },
  { name: 'a foundry provider with Microsoft Entra ID', config: withProvider({ type: 'foundry', baseUrl: 'https://contoso.services.ai.azure.com/anthropic', tenantId: 't', clientId: 'c', clientSecret: 's' }) },
  { name: 'a vertex provider on application default credentials', config: withProvider({ type: 'vertex', region: 'us-east5' }) },
  { name: 'a vertex provider on the global endpoint with a key file', config: withProvider({ type: 'vertex', region: 'global', project: 'my-project', credentialsFile: 'key.json' }) },
  { name: 'a vertex provider with its region from the environment and a base URL', config: withProvider({ type: 'vertex', region: '${CLOUD_ML_REGION}', baseUrl: 'https://vertex-proxy.example.com' }) },
  { name: "a gemini provider at Google's endpoint", config: withProvider({ type: 'gemini', apiKey: 'AIza-k' }) },
  { name: 'a gemini provider at the v1 API through a proxy', config: withProvider({ type: 'gemini', apiKey: 'k', baseUrl: 'https://gemini-proxy.example.com/v1' }) },
  {
    name: 'base URLs from environment variables',
    config: withSection('providers', {
      a: { type: 'openai-compatible', baseUrl: '${LOCAL_URL}' },
      b: { type: 'openai', baseUrl: 'http://${LOCAL_HOST}:11434/v1' },
    }),
  },
];

const invalid: readonly Case[] = [
  { name: 'unknown provider type', config: withProvider({ type: 'ollama' }), pointer: '/providers/p/type', problem: /providers\.p\.type/ },
  { name: 'unknown provider field', config: withProvider({ type: 'openai', apikey: 'x' }), pointer: '/providers/p/apikey', problem: /apikey/ },
  {
    name: 'unknown feature',
    config: withSection('models', { m: { provider: 'echo', features: ['tools', 'telepathy'] } }),
    pointer: '/models/m/features/1',
    problem: /models\.m\.features\[1\]: .*telepathy/,
  },
  { name: 'port above 65535', config: { ...echo, server: { port: 70000 } }, pointer: '/server/port', problem: /server\.port/ },
  { name: 'port as a string', config: { ...echo, server: { port: '8080' } }, pointer: '/server/port', problem: /server\.port/ },
  { name: 'model without a provider', config: withSection('models', { m: { upstreamModel: 'x' } }), pointer: '/models/m/provider', problem: /models\.m\.provider/ },
  { name: 'no models section', config: { providers: echo.providers }, pointer: '/models', problem: /models: / },
  { name: 'unknown top-level key', config: { ...echo, model: {} }, pointer: '/model', problem: /model\b/ },
  { name: 'empty protocol list', config: withSection('models', { m: { provider: 'echo', protocols: [] } }), pointer: '/models/m/protocols', problem: /models\.m\.protocols/ },
  { name: 'zero maxOutputTokens', config: withSection('models', { m: { provider: 'echo', maxOutputTokens: 0 } }), pointer: '/models/m/maxOutputTokens', problem: /maxOutputTokens/ },
  { name: 'malformed sha256 key', config: withGroup({ keys: ['sha256:abc'] }), pointer: '/keyGroups/dev/keys/0', problem: /keys\[0\]: .*64 hex/ },
  {
    name: 'malformed sha256 key with a label',
    config: withGroup({ keys: [{ name: 'bob', key: `sha256:${DIGEST}0` }] }),
    pointer: '/keyGroups/dev/keys/0',
    problem: /keys\[0\]/,
  },
  { name: 'empty key', config: withGroup({ keys: [''] }), pointer: '/keyGroups/dev/keys/0', problem: /keys\[0\]/ },
  { name: 'state: an http URL for Redis', config: { ...echo, state: { redis: 'http://127.0.0.1:6379' } }, pointer: '/state/redis', problem: /state\.redis: must be a redis:\/\// },
  { name: 'state: a Redis URL with a query', config: { ...echo, state: { redis: 'redis://127.0.0.1:6379?commandTimeout=0' } }, pointer: '/state/redis', problem: /state\.redis/ },
  { name: 'state: a Redis URL without a host', config: { ...echo, state: { redis: 'redis://:secret@' } }, pointer: '/state/redis', problem: /state\.redis/ },
  { name: 'state without redis', config: { ...echo, state: { keyPrefix: 'x:' } }, pointer: '/state/redis', problem: /state\.redis/ },
  { name: 'state: an unknown policy', config: { ...echo, state: { redis: 'redis://r', onRedisDown: { limits: 'maybe' } } }, pointer: '/state/onRedisDown/limits', problem: /onRedisDown\.limits/ },
  { name: 'state: an unknown budgets policy', config: { ...echo, state: { redis: 'redis://r', onRedisDown: { budgets: 'sometimes' } } }, pointer: '/state/onRedisDown/budgets', problem: /onRedisDown\.budgets/ },
  { name: 'base URL not http(s)', config: withProvider({ type: 'openai', baseUrl: 'ftp://example.com/v1' }), pointer: '/providers/p/baseUrl', problem: /baseUrl/ },
  { name: 'base URL without a scheme', config: withProvider({ type: 'openai', baseUrl: 'localhost:11434/v1' }), pointer: '/providers/p/baseUrl', problem: /baseUrl/ },
  {
    name: 'header name with a space',
    config: withProvider({ type: 'openai', headers: { 'X Title': 'x' } }),
    pointer: '/providers/p/headers',
    problem: /headers/,
  },
  { name: 'header value with a line break', config: withProvider({ type: 'openai', headers: { 'X-A': 'a\r\nb' } }), pointer: '/providers/p/headers/X-A', problem: /line breaks/ },
  // Rules a kind checks in code (providers/<type>/kind.ts), stated in its schema entry by the kind's jsonSchema.
  { name: 'openai-compatible without a base URL', config: withProvider({ type: 'openai-compatible' }), pointer: '/providers/p/baseUrl', problem: /providers\.p\.baseUrl: required/ },
  { name: 'azure-openai with neither resource nor base URL', config: withProvider({ type: 'azure-openai' }), pointer: '/providers/p/resource', problem: /providers\.p\.resource: required/ },
  {
    name: 'azure-openai with both resource and base URL',
    config: withProvider({ type: 'azure-openai', resource: 'contoso', baseUrl: 'https://contoso.openai.azure.com/openai/v1' }),
    pointer: '/providers/p',
    problem: /providers\.p\.baseUrl: give resource or baseUrl, not both/,
  },
  {
    name: 'azure-openai deployment without apiVersion',
    config: withProvider({ type: 'azure-openai', resource: 'contoso', deployment: 'd', protocols: ['chat'] }),
    pointer: '/providers/p/apiVersion',
    problem: /providers\.p\.apiVersion: required with deployment/,
  },
  {
    name: 'azure-openai deployment speaking Responses',
    config: withProvider({ type: 'azure-openai', resource: 'contoso', apiVersion: '2024-10-21', deployment: 'd', protocols: ['responses', 'chat'] }),
    pointer: '/providers/p/protocols',
    problem: /providers\.p\.protocols: must be \["chat"\] with deployment/,
  },
  {
    name: 'azure-openai apiVersion with the v1 base URL',
    config: withProvider({ type: 'azure-openai', baseUrl: 'https://contoso.openai.azure.com/openai/v1', apiVersion: '2024-10-21' }),
    pointer: '/providers/p/baseUrl',
    problem: /providers\.p\.baseUrl: with apiVersion, the resource endpoint/,
  },
  {
    name: 'azure-openai Entra ID without its client secret',
    config: withProvider({ type: 'azure-openai', resource: 'contoso', tenantId: 't', clientId: 'c' }),
    pointer: '/providers/p/clientSecret',
    problem: /providers\.p\.clientSecret: required/,
  },
  {
    name: 'foundry with Entra ID and a key',
    config: withProvider({ type: 'foundry', resource: 'contoso', tenantId: 't', clientId: 'c', clientSecret: 's', apiKey: 'k' }),
    pointer: '/providers/p',
    problem: /providers\.p\.apiKey: give apiKey or Microsoft Entra ID/,
  },
  { name: 'foundry with neither resource nor base URL', config: withProvider({ type: 'foundry' }), pointer: '/providers/p/resource', problem: /providers\.p\.resource: required/ },
  { name: 'bedrock region that is not a region name', config: withProvider({ type: 'bedrock', region: 'us-east-1/x' }), pointer: '/providers/p/region', problem: /providers\.p\.region: must be an AWS region name/ },
  { name: 'bedrock profile that is empty', config: withProvider({ type: 'bedrock', region: 'us-east-1', profile: '' }), pointer: '/providers/p/profile', problem: /providers\.p\.profile/ },
  { name: 'vertex without a region', config: withProvider({ type: 'vertex', project: 'my-project' }), pointer: '/providers/p/region', problem: /providers\.p\.region: required/ },
  { name: 'vertex region that is not a region name', config: withProvider({ type: 'vertex', region: 'us-east5/x' }), pointer: '/providers/p/region', problem: /providers\.p\.region: must be a Google Cloud region/ },
  { name: 'vertex project that is not a project id', config: withProvider({ type: 'vertex', region: 'us-east5', project: 'My Project' }), pointer: '/providers/p/project', problem: /providers\.p\.project: must be a Google Cloud project id/ },
  { name: 'vertex with an API key', config: withProvider({ type: 'vertex', region: 'us-east5', apiKey: 'k' }), pointer: '/providers/p/apiKey', problem: /providers\.p\.apiKey: Vertex AI takes no API key/ },
  { name: 'gemini with a base URL without a scheme', config: withProvider({ type: 'gemini', baseUrl: 'generativelanguage.googleapis.com/v1beta' }), pointer: '/providers/p/baseUrl', problem: /baseUrl/ },
  { name: 'gemini with a vertex field', config: withProvider({ type: 'gemini', apiKey: 'k', region: 'us-east5' }), pointer: '/providers/p/region', problem: /providers\.p\.region: unknown field/ },
  { name: 'azure-openai resource that is not a name', config: withProvider({ type: 'azure-openai', resource: 'contoso.evil.com/x' }), pointer: '/providers/p/resource', problem: /providers\.p\.resource: must be an Azure resource name/ },
  { name: 'a field of another kind', config: withProvider({ type: 'openai', resource: 'contoso' }), pointer: '/providers/p/resource', problem: /providers\.p\.resource: unknown field/ },
  // The next three are rules.ts rules, stated in the schema by json-schema.ts.
  {
    name: 'provider id with whitespace',
    config: { providers: { 'my echo': { type: 'echo' } }, models: { echo: { provider: 'my echo' } } },
    pointer: '/providers/my echo',
    problem: /contains whitespace/,
  },
  { name: 'model glob with brackets', config: withSection('models', { 'gpt-[45]': { provider: 'echo' } }), pointer: '/models/gpt-[45]', problem: /bad glob/ },
  { name: 'group model glob with **', config: withGroup({ models: ['gpt-**'] }), pointer: '/keyGroups/dev/models/0', problem: /bad glob/ },
];

describe('the JSON Schema and parseConfig agree', () => {
  it('the schema is draft 2020-12, which Ajv2020 implements', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it.each(valid)('valid: $name', ({ config }) => {
    expect(gatewayProblems(config)).toBeUndefined();
    expect(schemaProblems(config)).toBeUndefined();
  });

  it.each(invalid)('invalid: $name', ({ config, pointer, problem }) => {
    expect(gatewayProblems(config)).toMatch(problem!);
    const found = schemaProblems(config);
    expect(found, 'the schema accepts it').toBeDefined();
    expect(found!.some((p) => p === pointer || p.startsWith(`${pointer}/`)), `Ajv reported ${JSON.stringify(found)}`).toBe(true);
  });
});

interface Gap {
  readonly name: string;
  readonly config: unknown;
  readonly env?: Record<string, string>;
  /** Whether the gateway accepts it (the schema says the opposite). */
  readonly gateway: boolean;
  /** What the gateway says when it refuses. */
  readonly problem?: RegExp;
  readonly reason: string;
}

/** Where the two must differ, and why a JSON Schema cannot say what the gateway checks. */
const gaps: readonly Gap[] = [
  {
    name: 'a model naming a provider id that does not exist',
    config: withSection('models', { m: { provider: 'nowhere' } }),
    gateway: false,
    problem: /models\.m\.provider: unknown provider "nowhere"/,
    reason: 'cross-field: the value must be a key of another object ("providers"); JSON Schema has no such reference',
  },
  {
    name: 'a group allowing an exact model name no model matches',
    config: withGroup({ models: ['gpt-5'] }),
    gateway: false,
    problem: /"gpt-5" matches no configured model/,
    reason: 'cross-field: the name must match a key of "models", exactly or as a glob',
  },
  {
    name: 'the same key in two groups, once plain and once as its sha256: digest',
    config: {
      ...echo,
      keyGroups: {
        a: { keys: ['shared-key'] },
        b: { keys: [`sha256:${hashKey('shared-key')}`] },
      },
    },
    gateway: false,
    problem: /keyGroups\.b\.keys\[0\]: duplicate key/,
    reason: 'cross-field and computed: keys are compared by sha256 digest across all groups; uniqueItems sees one array, as written',
  },
  {
    name: 'an unset environment variable',
    config: withProvider({ type: 'openai', apiKey: '${NOT_SET_ANYWHERE}' }),
    gateway: false,
    problem: /NOT_SET_ANYWHERE is not set/,
    reason: 'the schema checks the file as written, not the environment it is run in',
  },
  {
    name: 'an environment variable where one of fixed words is expected',
    config: withProvider({ type: '${PROVIDER_TYPE}' }),
    gateway: true,
    reason: 'the schema checks the file as written: "${PROVIDER_TYPE}" is not one of the provider types until it is resolved',
  },
];

describe('where they differ, by necessity', () => {
  it.each(gaps)('$name: $reason', ({ config, gateway, problem }) => {
    if (gateway) expect(gatewayProblems(config)).toBeUndefined();
    else expect(gatewayProblems(config)).toMatch(problem!);
    // Should the schema ever agree here, the case belongs in the tables above.
    expect(schemaProblems(config) === undefined).toBe(!gateway);
  });
});

describe('the package', () => {
  it('ships the schema, and the example config points at it', () => {
    const pkg = JSON.parse(read('package.json')) as { files: string[] };
    expect(pkg.files).toEqual(expect.arrayContaining(['schema', 'gateway.config.example.json']));
    expect((JSON.parse(read('gateway.config.example.json')) as { $schema?: string }).$schema).toBe('./schema/gateway.schema.json');
  });
});
