/**
 * Google OAuth access tokens for one provider, through `google-auth-library`, loaded on first use
 * so that a gateway without a Vertex provider never loads it. The credentials: the provider's
 * `credentialsFile` (a service account's key or gcloud's authorized-user file), else the file
 * `GOOGLE_APPLICATION_CREDENTIALS` names, else the rest of application default credentials
 * (gcloud's own file, the metadata server). The library caches each token and fetches the next
 * one before the held one expires (`REFRESH_BEFORE_MS`), one fetch at a time.
 *
 * A credentials file's `token_uri` is honoured (sovereign and private clouds have their own token
 * endpoint). The library's service-account flow posts its signed assertion to Google's endpoint,
 * with Google's endpoint as the assertion's audience, whatever the file says: the audience is set
 * through the client's additional claims, and the post is sent to the file's endpoint by an
 * interceptor on the client's own HTTP transport.
 */
import { readFile } from 'node:fs/promises';
import type { AuthClient, JWTInput } from 'google-auth-library';

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** The endpoint the library posts to; a file naming another has it used instead. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** How long before a token's expiry the next one is fetched: the library's default, stated so that it holds. */
export const REFRESH_BEFORE_MS = 5 * 60_000;

export interface GoogleCredentials {
  /** The headers that authenticate a call: `authorization`, and `x-goog-user-project` for a file naming a quota project. */
  headers(): Promise<Record<string, string>>;
  /** The project the credentials belong to (the file's, else application default credentials' project). */
  project(): Promise<string | undefined>;
  /** The token held now, if any, so that error text echoing it can have it cut out. */
  heldToken(): string | undefined;
  /** Forgets the held token (it was refused), so that the next call fetches another. */
  forget(): void;
}

interface Loaded {
  readonly client: AuthClient;
  project(): Promise<string | undefined>;
}

/**
 * The credentials of `file` (or application default credentials when undefined). Nothing is
 * read or loaded until the first call asks; a failed load is tried again on the next call.
 */
export function googleCredentials(file: string | undefined, timeoutMs: number, env: NodeJS.ProcessEnv = process.env): GoogleCredentials {
  let loading: Promise<Loaded> | undefined;
  let loaded: Loaded | undefined;
  const load = (): Promise<Loaded> => {
    loading ??= loadClient(file ?? nonEmpty(env.GOOGLE_APPLICATION_CREDENTIALS), timeoutMs).then(
      (l) => (loaded = l),
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    );
    return loading;
  };
  let project: Promise<string | undefined> | undefined;
  return {
    async headers() {
      const { client } = await load();
      const headers: Record<string, string> = {};
      for (const [name, value] of (await client.getRequestHeaders()).entries()) headers[name] = value;
      return headers;
    },
    project() {
      project ??= load().then((l) => l.project());
      return project;
    },
    heldToken() {
      const token = loaded?.client.credentials.access_token;
      return typeof token === 'string' ? token : undefined;
    },
    forget() {
      if (loaded) loaded.client.credentials = { ...loaded.client.credentials, access_token: null, expiry_date: 1 };
    },
  };
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

async function loadClient(path: string | undefined, timeoutMs: number): Promise<Loaded> {
  const lib = await import('google-auth-library');
  // A token endpoint that does not answer fails the call rather than holding it.
  const common = { eagerRefreshThresholdMillis: REFRESH_BEFORE_MS, transporterOptions: { timeout: timeoutMs } };
  if (path === undefined) {
    const auth = new lib.GoogleAuth({ scopes: CLOUD_PLATFORM_SCOPE, clientOptions: common });
    const client = await auth.getClient();
    return { client, project: () => auth.getProjectId().catch(() => undefined) };
  }
  // The library checks the fields it needs; those read here are checked where read.
  const json = JSON.parse(await readFile(path, 'utf8')) as JWTInput & { readonly token_uri?: unknown };
  const tokenUri = typeof json.token_uri === 'string' && json.token_uri !== GOOGLE_TOKEN_URL ? json.token_uri : undefined;
  const fileProject = () => Promise.resolve(stringOr(json.project_id) ?? stringOr(json.quota_project_id));
  switch (json.type) {
    case 'service_account': {
      const client = new lib.JWT({
        ...common,
        scopes: [CLOUD_PLATFORM_SCOPE],
        ...(tokenUri === undefined ? {} : { additionalClaims: { aud: tokenUri } }),
      });
      client.fromJSON(json);
      if (tokenUri !== undefined) postTokenRequestsTo(client, tokenUri);
      return { client, project: fileProject };
    }
    case 'authorized_user': {
      const client = new lib.UserRefreshClient({
        ...common,
        ...(tokenUri === undefined ? {} : { endpoints: { oauth2TokenUrl: tokenUri } }),
      });
      client.fromJSON(json);
      return { client, project: fileProject };
    }
    default: {
      // Workload identity federation, impersonation and the rest: the library reads their files whole.
      const auth = new lib.GoogleAuth({ scopes: CLOUD_PLATFORM_SCOPE, keyFilename: path, clientOptions: common });
      const client = await auth.getClient();
      return { client, project: () => auth.getProjectId().catch(() => fileProject()) };
    }
  }
}

const stringOr = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** Sends the client's posts to Google's token endpoint to `tokenUri` instead. */
function postTokenRequestsTo(client: AuthClient, tokenUri: string): void {
  client.transporter.interceptors.request.add({
    resolved: async (options) => {
      if (String(options.url) === GOOGLE_TOKEN_URL) options.url = new URL(tokenUri);
      return options;
    },
  });
}
