/**
 * The fields every provider kind has in the config file (zod 4), and the shape of one kind's
 * entry: these fields, the kind's `type` literal, then the kind's own fields, which may add to
 * or redefine these (a different description, a field of its own). `schema.ts` joins the
 * registered kinds' entries into one union discriminated on `type`.
 */
import { z } from './zod.js';
import { PROTOCOLS } from '../protocols/types.js';
import { DEFAULT_RETRIES, DEFAULT_TIMEOUTS } from './defaults.js';
import { HTTP_TOKEN } from '../protocols/http-token.js';

const positiveInt = () => z.int().positive();

// Anything but a token would make the upstream request throw at send time.
const headerName = z.string().regex(HTTP_TOKEN, 'not a valid HTTP header name');
const headerValue = z.string().regex(/^[^\r\n]*$/, 'header values must not contain line breaks');

/** An absolute http(s) URL. Not z.httpUrl(): that one insists on a domain name and rejects localhost and IP addresses. */
export const httpUrl = () => z.url({ protocol: /^https?$/ });

const timeouts = z
  .strictObject({
    connectMs: positiveInt().default(DEFAULT_TIMEOUTS.connectMs).describe('TCP/TLS connect timeout, in milliseconds.'),
    headersMs: positiveInt()
      .default(DEFAULT_TIMEOUTS.headersMs)
      .describe('Longest wait from sending a request to receiving the response headers, in milliseconds.'),
    idleMs: positiveInt()
      .default(DEFAULT_TIMEOUTS.idleMs)
      .describe('Longest silence between two chunks of a response body (streams included), in milliseconds.'),
    totalMs: positiveInt()
      .default(DEFAULT_TIMEOUTS.totalMs)
      .describe(
        'Longest a whole upstream call may take, retries and the complete stream included, in milliseconds (default 30 minutes).',
      ),
  })
  .describe('Upstream timeouts for this provider.');

export const commonProviderFields = {
  baseUrl: httpUrl().optional().describe('Absolute http(s) base URL. Default: the kind\'s own.'),
  apiKey: z.string().optional().describe('Upstream credential, usually "${ENV_VAR}". Optional.'),
  headers: z.record(headerName, headerValue).optional().describe('Extra static headers sent with every upstream request.'),
  protocols: z
    .array(z.enum(PROTOCOLS))
    .min(1)
    .optional()
    .describe('Protocols the upstream speaks natively, overriding the kind\'s own set.'),
  timeouts: timeouts.prefault({}),
  retries: z
    .int()
    .min(0)
    .max(10)
    .default(DEFAULT_RETRIES)
    .describe(
      'Extra attempts after a connection error, a timeout or an HTTP 408/409/429/5xx/529 answer, made only before any byte reached the client (default 2; 0 disables).',
    ),
};

/**
 * `credentials`: several credentials taking turns, instead of the provider's one. Each may carry
 * `apiKey` and the kind's own credential fields (`credentialFields`: a profile, a credentials file).
 */
function credentialsField(kindFields: z.ZodRawShape, credentialFields: readonly string[]) {
  const own = Object.fromEntries(credentialFields.flatMap((f) => (kindFields[f] ? [[f, kindFields[f]]] : [])));
  const credential = z.strictObject({
    name: z.string().min(1).regex(/^\S+$/, 'must not contain whitespace').describe('Shown in the log, the inspector and `check` (never the secret).'),
    apiKey: z.string().optional().describe('This credential\'s key, usually "${ENV_VAR}".'),
    ...own,
    weight: positiveInt().default(1).describe('Its share of the requests among credentials of the same priority (default 1).'),
    priority: z.int().min(0).default(0).describe('Lower goes first; a higher priority is used only when no better credential can take the request (default 0).'),
    limits: z
      .strictObject({
        requestsPerMinute: positiveInt().optional().describe('Requests per minute this credential may make.'),
        tokensPerMinute: positiveInt().optional().describe('Input plus output tokens per minute this credential may use.'),
      })
      .default({})
      .describe("This credential's own limits; at them, another credential takes the request."),
  });
  return z
    .array(credential)
    .min(1)
    .optional()
    .describe(
      'Several credentials (keys or accounts) taking turns instead of the provider\'s one: spread by weight within the best priority, a credential answered 429/529 rests until its retry-after, one refused (401/403) until the config is reloaded, and a conversation stays on one credential while it can take requests.',
    );
}

export type CommonProviderFields = typeof commonProviderFields;

/** The fields of one kind's entry: the common ones, with the kind's own laid over them. */
export type KindFields<Type extends string, Own extends z.ZodRawShape> = Omit<CommonProviderFields, keyof Own | 'type'> &
  Own & { type: z.ZodLiteral<Type>; credentials: ReturnType<typeof credentialsField> };

/** One kind's entry in `providers`, as a strict object with `type` fixed to the kind's name. */
export function providerEntry<Type extends string, Own extends z.ZodRawShape>(kind: {
  readonly type: Type;
  readonly summary: string;
  readonly protocols: readonly string[];
  readonly fields: Own;
  readonly credentialFields?: readonly string[];
}): z.ZodObject<KindFields<Type, Own>, z.core.$strict> {
  const summary = `${kind.summary} Speaks natively: ${kind.protocols.join(', ')}.`;
  const credentials = credentialsField(kind.fields, kind.credentialFields ?? []);
  const shape = { type: z.literal(kind.type).describe(summary), ...commonProviderFields, credentials, ...kind.fields };
  const entry = z.strictObject(shape).describe(`A provider of type "${kind.type}": ${summary}`);
  return entry as unknown as z.ZodObject<KindFields<Type, Own>, z.core.$strict>;
}

/** One provider's entry after validation (static defaults applied). */
export type WrittenProviderOf<Type extends string, Own extends z.ZodRawShape> = z.output<
  z.ZodObject<KindFields<Type, Own>, z.core.$strict>
>;
