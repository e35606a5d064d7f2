/**
 * Where Azure OpenAI's calls go, in its two forms.
 *
 * The v1 API (no `apiVersion`): OpenAI's own paths under `https://{resource}.openai.azure.com/openai/v1`,
 * the deployment named by the body's `model`.
 *
 * The deployment form (`apiVersion` set): under the resource endpoint `https://{resource}.openai.azure.com`,
 * Chat at `/openai/deployments/{deployment}/chat/completions?api-version=...`. Responses has no
 * deployment path: Azure serves it at `/openai/responses?api-version=...` (a preview api-version,
 * 2025-03-01-preview or later), the deployment named by the body's `model`. The deployment is the
 * provider's `deployment`, else the upstream model (a model entry's `upstreamModel`).
 */
import type { ProviderConfig } from '../../config/types.js';
import type { UrlCall } from '../http.js';
import { protocolPath, urlUnder } from '../url.js';

/** The v1 API's base URL for a resource. */
export const resourceBaseUrl = (resource: string): string => `https://${resource.toLowerCase()}.openai.azure.com/openai/v1`;

/** The resource endpoint, the deployment form's base URL. */
export const resourceEndpoint = (resource: string): string => `https://${resource.toLowerCase()}.openai.azure.com`;

/** The deployment form's settings, from the provider's own fields; undefined for the v1 API. */
export interface DeploymentForm {
  readonly apiVersion: string;
  /** The one deployment every call goes to; undefined: each call's upstream model names its deployment. */
  readonly deployment: string | undefined;
}

export function deploymentForm(config: ProviderConfig): DeploymentForm | undefined {
  const { apiVersion, deployment } = config.own;
  if (typeof apiVersion !== 'string') return undefined;
  return { apiVersion, deployment: typeof deployment === 'string' ? deployment : undefined };
}

/** The URL of a call in the v1 API. */
export const v1Url = (config: ProviderConfig, call: UrlCall): URL => urlUnder(config.baseUrl, ...protocolPath(call.protocol, call.operation));

/** The URL of a call in the deployment form. */
export function deploymentUrl(config: ProviderConfig, form: DeploymentForm, call: UrlCall): URL {
  const path = protocolPath(call.protocol, call.operation);
  let url: URL;
  if (call.protocol === 'chat') {
    const deployment = form.deployment ?? call.model;
    if (deployment === undefined) throw new RangeError('no deployment: the request names no model');
    url = urlUnder(config.baseUrl, 'openai', 'deployments', deployment, ...path);
  } else {
    url = urlUnder(config.baseUrl, 'openai', ...path);
  }
  url.searchParams.set('api-version', form.apiVersion);
  return url;
}

/** The model list `check --probe` pings: the v1 API's `/models`, or `/openai/models?api-version=...`. */
export function modelsUrl(config: ProviderConfig): URL {
  const form = deploymentForm(config);
  if (form === undefined) return urlUnder(config.baseUrl, 'models');
  const url = urlUnder(config.baseUrl, 'openai', 'models');
  url.searchParams.set('api-version', form.apiVersion);
  return url;
}
