/** Tracing's settings: the config's section over the standard OTEL_* variables. */
import { describe, expect, it } from 'vitest';
import type { TracingConfig } from '../config/types.js';
import { parseOtlpHeaders, shownEndpoint, tracingSettings } from './settings.js';

const section = (fields: Partial<TracingConfig> = {}): TracingConfig => ({
  otlpEndpoint: undefined,
  protocol: undefined,
  headers: {},
  captureContent: false,
  sampleRatio: undefined,
  ...fields,
});

describe('tracingSettings', () => {
  it.each([
    ['no section, no variable: off', undefined, {}, undefined],
    ['OTEL_SDK_DISABLED wins over a section', section(), { OTEL_SDK_DISABLED: 'true' }, undefined],
    ['OTEL_TRACES_EXPORTER=none wins too', section(), { OTEL_TRACES_EXPORTER: 'none' }, undefined],
  ])('%s', (_what, config, env, expected) => {
    expect(tracingSettings(config, env)).toEqual(expected);
  });

  it.each([
    ['an empty section: the default collector on loopback', section(), {}, { url: 'http://127.0.0.1:4318/v1/traces', protocol: 'http/protobuf', sampleRatio: 1 }],
    ['the section names the base URL', section({ otlpEndpoint: 'http://collector:4318/' }), {}, { url: 'http://collector:4318/v1/traces' }],
    ['OTEL_EXPORTER_OTLP_ENDPOINT alone turns tracing on', undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, { url: 'http://c:4318/v1/traces' }],
    ['the traces endpoint is taken whole', undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:1/custom' }, { url: 'http://t:1/custom' }],
    ['the section wins over the variables', section({ otlpEndpoint: 'http://mine:4318' }), { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:1/x' }, { url: 'http://mine:4318/v1/traces' }],
    ['the protocol from the variables', undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, { protocol: 'http/json' }],
    ['grpc is not offered: protobuf over HTTP', undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, { protocol: 'http/protobuf' }],
    ['a ratio sampler from the variables', section(), { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }, { sampleRatio: 0.25 }],
    ['the section\'s ratio wins', section({ sampleRatio: 0.5 }), { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }, { sampleRatio: 0.5 }],
    ['always_off samples nothing', section(), { OTEL_TRACES_SAMPLER: 'always_off' }, { sampleRatio: 0 }],
    [
      'headers: the section over the traces variable over the general one',
      section({ headers: { 'x-a': 'config' } }),
      { OTEL_EXPORTER_OTLP_HEADERS: 'x-a=general,x-b=gen%20eral', OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'X-C=traces' },
      { headers: { 'x-a': 'config', 'x-b': 'gen eral', 'x-c': 'traces' } },
    ],
    ['the service name', section(), { OTEL_SERVICE_NAME: 'team-gateway' }, { serviceName: 'team-gateway' }],
  ])('%s', (_what, config, env, expected) => {
    expect(tracingSettings(config, env)).toMatchObject(expected);
  });

  it('refuses an endpoint that is not an http(s) URL, without showing its secrets', () => {
    expect(() => tracingSettings(section({ otlpEndpoint: 'ftp://user:secret@c' }), {})).toThrow(/not an http\(s\) URL: ftp:\/\/c\/v1\/traces$/);
  });
});

describe('parseOtlpHeaders', () => {
  it.each([
    ['', {}],
    ['a=1', { a: '1' }],
    [' a = 1 , b=2==3 ', { a: '1', b: '2==3' }],
    ['=x,novalue,c=%zz', { c: '%zz' }],
  ])('%j', (text, expected) => {
    expect(parseOtlpHeaders(text)).toEqual(expected);
  });
});

describe('shownEndpoint', () => {
  it('drops the user, the password and the query', () => {
    expect(shownEndpoint('https://u:p@c.example:4318/v1/traces?key=s')).toBe('https://c.example:4318/v1/traces');
  });
});
