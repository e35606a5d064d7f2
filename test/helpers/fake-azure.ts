/**
 * A fake upstream that behaves as Azure OpenAI's v1 API does where the gateway can tell: the key
 * must come in the `api-key` header (a request without it, or with an Authorization header, is
 * refused 401), and the API lives under /openai/v1/ (anything else is 404). The answers are the
 * canned OpenAI ones: the v1 API answers in OpenAI's shapes.
 */
import type { ServerResponse } from 'node:http';
import { cannedReply } from './canned.js';
import { sendJson } from './fake-upstream.js';
import type { Behaviour, Received } from './received.js';

export const AZURE_KEY = 'azure-provider-secret-key-0123';

/** Azure's error body: `code` and `message` inside `error`. */
const refuse = (res: ServerResponse, status: number, message: string) => sendJson(res, status, { error: { code: String(status), message } });

export function fakeAzure(key = AZURE_KEY): Behaviour {
  return (req: Received, res: ServerResponse) => {
    if (req.headers.authorization !== undefined) {
      refuse(res, 401, 'Access denied: this endpoint takes the api-key header, and got an Authorization header.');
      return;
    }
    if (req.headers['api-key'] !== key) {
      refuse(res, 401, 'Access denied due to invalid subscription key or wrong API endpoint.');
      return;
    }
    const path = req.url.split('?')[0] ?? '';
    if (req.method !== 'POST' || !['/openai/v1/chat/completions', '/openai/v1/responses'].includes(path)) {
      refuse(res, 404, 'Resource not found');
      return;
    }
    cannedReply({ ...req, url: req.url.replace('/openai/v1/', '/v1/') }, res);
  };
}
