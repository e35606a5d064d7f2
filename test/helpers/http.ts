/** Raw HTTP against the gateway, for checks the SDKs would hide (status, exact error bodies, headers). */
import { createServer as createNetServer } from 'node:net';
import { request } from 'undici';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly json: unknown;
}

/** `onHeaders` runs once the response headers are in, before the body is read (a stream's, say). */
export async function call(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; onHeaders?: () => void } = {},
): Promise<RawResponse> {
  const res = await request(url, {
    method: (options.method ?? 'POST') as 'POST',
    headers: options.headers ?? {},
    body: options.body ?? null,
  });
  options.onHeaders?.();
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** A loopback port that was just free: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
