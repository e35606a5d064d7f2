import { describe, expect, it } from 'vitest';
import { hostAccepted, hostName } from './host-guard.js';

describe('Host header names', () => {
  it.each([
    ['localhost', 'localhost'],
    ['LocalHost:8787', 'localhost'],
    ['127.0.0.1:1', '127.0.0.1'],
    ['[::1]:8787', '[::1]'],
    ['[::1]', '[::1]'],
    ['a.b:99999', 'a.b'],
    ['a.b:', undefined],
    ['a.b:80x', undefined],
    ['[::1', undefined],
    ['::1', undefined],
    [':80', undefined],
    ['', undefined],
  ])('%j names %j', (host, name) => {
    expect(hostName(host)).toBe(name);
  });

  it.each([
    ['localhost:8787', true],
    ['app.localhost', true],
    ['127.255.255.255', true],
    ['[::1]:1', true],
    ['gateway.lan:8080', true],
    ['GATEWAY.LAN', true],
    ['[fd00::1]', true],
    ['127.0.0.256', false],
    ['127.0.0.1.evil.example', false],
    ['localhost.evil', false],
    ['evillocalhost', false],
    ['0.0.0.0:8787', false],
    ['[::2]', false],
    ['gateway.lan.evil', false],
  ])('%j accepted: %s', (host, accepted) => {
    expect(hostAccepted(host, ['gateway.lan', 'fd00::1'])).toBe(accepted);
  });
});
