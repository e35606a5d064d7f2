/**
 * The AWS region a bedrock provider signs for and, without a `baseUrl`, sends to: the entry's
 * `region`, else the environment's, as the AWS SDKs read it.
 */

/** The environment the AWS SDKs read; the region is read from it when the config is loaded. */
export type AwsEnv = Readonly<Record<string, string | undefined>>;

export function regionOf(written: string | undefined, env: AwsEnv = process.env): string | undefined {
  const region = written ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  return region === undefined || region === '' ? undefined : region;
}

/** Bedrock Runtime's endpoint in a region. */
export const runtimeBaseUrl = (region: string): string => `https://bedrock-runtime.${region}.amazonaws.com`;
