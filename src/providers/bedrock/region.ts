/** Bedrock Runtime's endpoint in a region. */
export const runtimeBaseUrl = (region: string): string => `https://bedrock-runtime.${region}.amazonaws.com`;
