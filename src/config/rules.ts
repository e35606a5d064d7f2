/**
 * Cross-field rules the schema cannot express. Run on a config that already passed the
 * schema; each rule returns issues, never throws, so all of them are reported together.
 */
import type { ConfigIssue } from '../errors.js';
import { providerKind } from '../providers/kinds.js';
import { globProblem, isGlob, matchGlob } from './glob.js';
import { keyDigest } from './keys.js';
import { formatPath } from './path.js';
import type { ValidatedConfig } from './schema.js';

type Rule = (config: ValidatedConfig) => ConfigIssue[];

/** Provider ids and group names are referred to elsewhere, so they must be writable and readable. */
const validIds: Rule = (config) => {
  const issues: ConfigIssue[] = [];
  const check = (section: string, id: string) => {
    if (id === '') issues.push({ path: formatPath([section, id]), message: 'name must not be empty' });
    else if (/\s/.test(id)) issues.push({ path: formatPath([section, id]), message: `"${id}" contains whitespace` });
  };
  for (const id of Object.keys(config.providers)) check('providers', id);
  for (const name of Object.keys(config.keyGroups)) check('keyGroups', name);
  return issues;
};

const modelNames: Rule = (config) =>
  Object.keys(config.models).flatMap((name) => {
    const problem = globProblem(name);
    return problem ? [{ path: formatPath(['models', name]), message: problem }] : [];
  });

const knownProviders: Rule = (config) => {
  const ids = Object.keys(config.providers);
  const configured = ids.length > 0 ? `configured: ${ids.join(', ')}` : 'no providers are configured';
  return Object.entries(config.models).flatMap(([name, model]) =>
    Object.hasOwn(config.providers, model.provider)
      ? []
      : [{ path: formatPath(['models', name, 'provider']), message: `unknown provider "${model.provider}" (${configured})` }],
  );
};

/** A model its provider's kind calls in protocols of its own (Vertex's Gemini) needs a provider that speaks one of them. */
const modelProtocols: Rule = (config) =>
  Object.entries(config.models).flatMap(([name, model]) => {
    const provider = Object.hasOwn(config.providers, model.provider) ? config.providers[model.provider] : undefined;
    const upstream = model.upstreamModel ?? (isGlob(name) ? undefined : name);
    if (provider === undefined || upstream === undefined) return [];
    const kind = providerKind(provider.type);
    const calledIn = kind.modelProtocols?.(upstream);
    const speaks: readonly string[] = provider.protocols ?? kind.protocols;
    if (calledIn === undefined || calledIn.some((p) => speaks.includes(p))) return [];
    const message = `provider "${model.provider}" calls "${upstream}" in ${calledIn.join(' or ')}, which its protocols (${speaks.join(', ')}) leave out`;
    return [{ path: formatPath(['models', name, 'provider']), message }];
  });

/** Each provider kind's own checks (a base URL it needs, fields that go together), from its folder. */
const kindRules: Rule = (config) =>
  Object.entries(config.providers).flatMap(([id, provider]) =>
    (providerKind(provider.type).rules?.(provider as never) ?? []).map((issue) => ({
      path: formatPath(['providers', id, ...issue.path]),
      message: issue.message,
    })),
  );

/** Several credentials replace the provider's one, so not both; their names tell them apart in the log. */
const credentialLists: Rule = (config) =>
  Object.entries(config.providers).flatMap(([id, provider]) => {
    const credentials = provider.credentials;
    if (credentials === undefined) return [];
    const issues: ConfigIssue[] = [];
    if (provider.apiKey !== undefined) issues.push({ path: formatPath(['providers', id, 'apiKey']), message: 'give apiKey or credentials, not both' });
    const seen = new Set<string>();
    credentials.forEach((c, i) => {
      if (seen.has(c.name)) issues.push({ path: formatPath(['providers', id, 'credentials', i, 'name']), message: `"${c.name}" names another credential already` });
      seen.add(c.name);
    });
    return issues;
  });

/** A group's patterns must be valid globs, and an exact name must be something a client could actually get. */
const groupModels: Rule = (config) => {
  const patterns = Object.keys(config.models);
  const issues: ConfigIssue[] = [];
  for (const [group, { models }] of Object.entries(config.keyGroups)) {
    models.forEach((pattern, i) => {
      const path = formatPath(['keyGroups', group, 'models', i]);
      const problem = globProblem(pattern);
      if (problem) issues.push({ path, message: problem });
      else if (!isGlob(pattern) && !patterns.some((p) => matchGlob(p, pattern))) {
        issues.push({ path, message: `"${pattern}" matches no configured model (neither an exact name nor a glob)` });
      }
    });
  }
  return issues;
};

/** One key, one group: a key in two groups would make its permissions depend on lookup order. */
const uniqueKeys: Rule = (config) => {
  const seen = new Map<string, { group: string; index: number }>();
  const issues: ConfigIssue[] = [];
  for (const [group, { keys }] of Object.entries(config.keyGroups)) {
    keys.forEach((entry, index) => {
      const digest = keyDigest(typeof entry === 'string' ? entry : entry.key);
      const first = seen.get(digest);
      if (!first) {
        seen.set(digest, { group, index });
        return;
      }
      const where = formatPath(['keyGroups', first.group, 'keys', first.index]);
      const message =
        first.group === group
          ? `duplicate key: the same key is already in group "${group}" (${where})`
          : `duplicate key: the same key is already in group "${first.group}" (${where}); a key may belong to one group only, here "${group}"`;
      issues.push({ path: formatPath(['keyGroups', group, 'keys', index]), message });
    });
  }
  return issues;
};

/** A fallback must name a model a client could get (exact or through a glob), and not the model itself. */
const fallbackModels: Rule = (config) => {
  const patterns = Object.keys(config.models);
  const issues: ConfigIssue[] = [];
  for (const [name, model] of Object.entries(config.models)) {
    (model.fallbacks ?? []).forEach((fallback, i) => {
      const path = formatPath(['models', name, 'fallbacks', i]);
      if (isGlob(fallback)) issues.push({ path, message: `"${fallback}" is a glob; a fallback names one model` });
      else if (fallback === name) issues.push({ path, message: `a model cannot fall back to itself` });
      else if (!patterns.some((p) => matchGlob(p, fallback))) {
        issues.push({ path, message: `"${fallback}" matches no configured model (neither an exact name nor a glob)` });
      }
    });
  }
  return issues;
};

/** Metrics on the gateway's port would be open to every key holder and every client that reaches it: a token guards them. */
const metricsGuarded: Rule = (config) => {
  const m = config.metrics;
  if (!m?.enabled || m.port !== undefined || m.token !== undefined) return [];
  return [{ path: formatPath(['metrics', 'token']), message: 'metrics served on the gateway\'s port (no "port") need a "token"; or give "port" to serve them on a listener of their own' }];
};

const RULES: readonly Rule[] = [validIds, modelNames, knownProviders, modelProtocols, kindRules, credentialLists, groupModels, uniqueKeys, fallbackModels, metricsGuarded];

export function checkRules(config: ValidatedConfig): ConfigIssue[] {
  return RULES.flatMap((rule) => rule(config));
}
