/**
 * Retry-After in both of its forms, and what is ignored.
 */
import { expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/client/index.js';

const now = Date.UTC(2026, 10, 22, 12, 0, 0);

it('reads delay-seconds as milliseconds', () => {
  expect(parseRetryAfter('3', { now })).toBe(3000);
  expect(parseRetryAfter(' 0 ', { now })).toBe(0);
});

it('reads an HTTP-date as the time left until it', () => {
  expect(parseRetryAfter('Sun, 22 Nov 2026 12:00:05 GMT', { now })).toBe(5000);
});

it('reads an HTTP-date in the past as no wait', () => {
  expect(parseRetryAfter('Sun, 22 Nov 2026 11:59:00 GMT', { now })).toBe(0);
});

it('ignores an absent or unreadable header', () => {
  expect(parseRetryAfter(null, { now })).toBeUndefined();
  expect(parseRetryAfter('soon', { now })).toBeUndefined();
  expect(parseRetryAfter('-1', { now })).toBeUndefined();
  expect(parseRetryAfter('1.5', { now })).toBeUndefined();
  expect(parseRetryAfter('2026-11-22', { now })).toBeUndefined();
});
