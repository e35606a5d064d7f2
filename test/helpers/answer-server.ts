/**
 * A minimal HTTP server on 127.0.0.1 port 0 that answers every request with
 * whatever `answer(path, body)` returns. Codec tests use it to show what an
 * encoder produced to the official SDKs, exactly as the gateway would.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body: string;
}

export interface AnswerServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startAnswerServer(answer: (path: string, body: unknown) => Answer | Promise<Answer>): Promise<AnswerServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      void Promise.resolve(answer((req.url ?? '/').split('?')[0]!, body)).then(
        (a) => {
          res.writeHead(a.status ?? 200, a.headers ?? { 'content-type': 'application/json' });
          res.end(a.body);
        },
        (err: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(err));
        },
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
