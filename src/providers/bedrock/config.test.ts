/**
 * The bedrock kind's config: the region from the entry or the AWS environment (read at load), the
 * endpoint it gives, and the refusal when there is none.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/parse.js';
import { configIssues } from '../../../test/helpers/config-issues.js';

const withBedrock = (entry: Record<string, unknown>) => ({ providers: { aws: { type: 'bedrock', ...entry } }, models: { m: { provider: 'aws' } } });

describe('bedrock config', () => {
  it.each<[Record<string, unknown>, Record<string, string>, string]>([
    [{ region: 'eu-central-1' }, { AWS_REGION: 'us-east-1' }, 'https://bedrock-runtime.eu-central-1.amazonaws.com'],
    [{}, { AWS_REGION: 'us-east-1', AWS_DEFAULT_REGION: 'us-west-2' }, 'https://bedrock-runtime.us-east-1.amazonaws.com'],
    [{}, { AWS_DEFAULT_REGION: 'us-west-2' }, 'https://bedrock-runtime.us-west-2.amazonaws.com'],
    [{ region: 'us-east-1', baseUrl: 'https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com/' }, {}, 'https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com'],
    [{ apiKey: 'k', baseUrl: 'https://proxy.example' }, {}, 'https://proxy.example'],
  ])('%j with %j: %s, speaking messages', (entry, env, baseUrl) => {
    // The config's environment, not the process's: a region from it is read when the config loads.
    const p = parseConfig(withBedrock(entry), { env }).providers.get('aws')!;
    expect(p.baseUrl).toBe(baseUrl);
    expect([...p.protocols]).toEqual(['messages']);
  });

  it.each([{}, { baseUrl: 'https://proxy.example' }, { apiKey: 'k' }])('refuses %j without a region anywhere', (entry) => {
    expect(configIssues(withBedrock(entry))).toEqual([{ path: 'providers.aws.region', message: 'required: the AWS region, here or in AWS_REGION / AWS_DEFAULT_REGION' }]);
  });

  it('keeps the profile among its own fields, and the API key as the credential', () => {
    const p = parseConfig(withBedrock({ region: 'us-east-1', profile: 'prod', apiKey: 'bedrock-key-0123456789' }), { env: {} }).providers.get('aws')!;
    expect(p.own).toEqual({ region: 'us-east-1', profile: 'prod' });
    expect(p.apiKey).toBe('bedrock-key-0123456789');
  });
});
