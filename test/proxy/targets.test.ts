/**
 * The proxy's own authorities (src/proxy/targets.ts): an absolute-form target naming the proxy
 * is rewritten to origin-form, any other refused. Whether the proxy listens on loopback, and so
 * also answers to the loopback names, is the address guard's isLoopbackHostName.
 */
import { expect, it } from 'vitest';
import { judgeTarget, ownAuthorities } from '../../src/proxy/targets.js';

it('answers to the loopback names when it listens on any loopback host, and to its own host only otherwise', () => {
  const loopbackNames = ['127.0.0.1:8080', 'localhost:8080', '[::1]:8080'];
  for (const host of ['127.0.0.1', 'localhost', '::1'])
    expect([...ownAuthorities({ host, port: 8080 })].sort()).toEqual(loopbackNames.sort());
  expect([...ownAuthorities({ host: '127.0.0.2', port: 8080 })].sort()).toEqual(['127.0.0.2:8080', ...loopbackNames].sort());
  expect([...ownAuthorities({ host: '0.0.0.0', port: 8080 })]).toEqual(['0.0.0.0:8080']);
  expect([...ownAuthorities({ host: '::', port: 8080 })]).toEqual(['[::]:8080']);
  const own = ownAuthorities({ host: '127.0.0.1', port: 8080 });
  expect(judgeTarget('http://localhost:8080/v0/health?x=1', own)).toEqual({ ok: true, target: '/v0/health?x=1' });
  expect(judgeTarget('http://10.0.0.1:8080/v0/health', own).ok).toBe(false);
});
