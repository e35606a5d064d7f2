/**
 * AWS Signature Version 4 over each call's final URL and body (`HttpHooks.sign`), with the
 * credentials of AWS's standard chain: environment, shared config and credentials files (a
 * profile), SSO, web identity, container and instance metadata. The chain is made once per
 * provider and remembers what it found; it fetches new credentials itself when they are within
 * five minutes of their `expiration`, so a long-running gateway keeps signing with fresh ones.
 * The AWS packages are loaded on the first call, so a gateway without a bedrock provider never
 * loads them.
 */
import type { ProviderConfig } from '../../config/types.js';
import { GatewayError } from '../../errors.js';
import type { SignedCall } from '../http.js';

/** Bedrock Runtime's signing name. */
const SERVICE = 'bedrock';

interface Signer {
  sign(request: SignableRequest): Promise<{ headers: Record<string, string> }>;
}

interface SignableRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: Buffer;
}

/** The `sign` hook of one provider, signing for `region` with the chain's credentials (its `profile`, if given). */
export function sigV4(config: ProviderConfig, region: string): (call: SignedCall) => Promise<Record<string, string>> {
  const profile = typeof config.own.profile === 'string' ? config.own.profile : undefined;
  let signer: Promise<Signer> | undefined;
  return async (call) => {
    signer ??= createSigner(region, profile);
    const request = signable(call);
    let signed: { headers: Record<string, string> };
    try {
      signed = await (await signer).sign(request);
    } catch (err) {
      // The next call starts over: the operator may have fixed the credentials in the meantime.
      signer = undefined;
      throw new GatewayError(
        'upstream_error',
        `Provider '${config.id}' has no usable AWS credential: ${err instanceof Error ? err.message : String(err)}. ` +
          'Your gateway key was accepted; the operator should set AWS credentials for the gateway (environment, profile or role) or the provider\'s apiKey.',
        { headers: { 'x-should-retry': 'false' }, cause: err },
      );
    }
    const out: Record<string, string> = {};
    // Host goes as the URL has it (the HTTP client writes it); the rest is the signature and what it covers.
    for (const [name, value] of Object.entries(signed.headers)) if (name.toLowerCase() !== 'host') out[name.toLowerCase()] = value;
    return out;
  };
}

async function createSigner(region: string, profile: string | undefined): Promise<Signer> {
  const [{ SignatureV4 }, { Hash }, { fromNodeProviderChain }] = await Promise.all([
    import('@smithy/signature-v4'),
    import('@smithy/hash-node'),
    import('@aws-sdk/credential-providers'),
  ]);
  const credentials = fromNodeProviderChain(profile === undefined ? {} : { profile });
  return new SignatureV4({ service: SERVICE, region, credentials, sha256: Hash.bind(null, 'sha256'), uriEscapePath: true }) as unknown as Signer;
}

/**
 * The request as signed: only host, content-type and the x-amz-* headers, so that no header a
 * client sends (and the gateway forwards) can change or break the signature.
 */
export function signable(call: SignedCall): SignableRequest {
  const { url } = call;
  const headers: Record<string, string> = { host: url.host };
  for (let i = 0; i + 1 < call.headers.length; i += 2) {
    const name = call.headers[i]!.toLowerCase();
    if (name === 'content-type' || name.startsWith('x-amz-')) headers[name] = call.headers[i + 1]!;
  }
  const request: SignableRequest = {
    method: call.method,
    protocol: url.protocol,
    hostname: url.hostname,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers,
    body: call.body,
  };
  if (url.port !== '') request.port = Number(url.port);
  return request;
}
