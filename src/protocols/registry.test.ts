/** What every protocol module must hold for the rest of the gateway to use it without naming it. */
import { describe, expect, it } from 'vitest';
import { protocolEndpointAt } from './endpoints.js';
import { parseTemplate } from './path-template.js';
import { likelyProtocol, protocols } from './registry.js';
import { PROTOCOLS } from './types.js';

describe.each(PROTOCOLS)('the %s module', (id) => {
  const module = protocols[id];

  it('is registered under its own id', () => {
    expect(module.id).toBe(id);
  });

  it('serves a create endpoint, and each endpoint is found by path and has an upstream path', () => {
    expect(module.endpoints.some((e) => e.operation === 'create')).toBe(true);
    for (const endpoint of module.endpoints) {
      parseTemplate(endpoint.path);
      if (!endpoint.path.includes('{')) expect(protocolEndpointAt(endpoint.path)).toMatchObject({ protocol: id, operation: endpoint.operation });
      expect(module.upstreamPath(endpoint.operation, { model: 'm', stream: endpoint.stream === true })).toBeDefined();
    }
  });

  it('ends streams with a proper end and an error end, and lists both in its watcher', () => {
    expect(module.streamEnds.proper.length).toBeGreaterThan(0);
    expect(module.streamEnds.error.length).toBeGreaterThan(0);
    expect(module.watchStream().finished).toBe(false);
  });

  it('is the likely protocol of a request to its own endpoints', () => {
    for (const endpoint of module.endpoints) expect(likelyProtocol(endpoint.path, () => false)).toBe(id);
  });
});

describe('the registry', () => {
  it('gives no two protocols the same endpoint or marker', () => {
    const paths = PROTOCOLS.flatMap((p) => protocols[p].endpoints.map((e) => e.path));
    expect(new Set(paths).size).toBe(paths.length);
    const markers = PROTOCOLS.flatMap((p) => protocols[p].marker ?? []);
    expect(new Set(markers).size).toBe(markers.length);
  });

  it('guesses a caller by its marker header when the path says nothing, else Chat Completions', () => {
    expect(likelyProtocol('/nowhere', (name) => name === 'anthropic-version')).toBe('messages');
    expect(likelyProtocol('/nowhere', () => false)).toBe('chat');
    expect(likelyProtocol('/v1/responses', () => false)).toBe('responses');
  });

  it('finds no endpoint at a path no protocol serves', () => {
    expect(protocolEndpointAt('/v1/models')).toBeUndefined();
    expect(protocolEndpointAt('/v1/messages/other')).toBeUndefined();
  });
});
