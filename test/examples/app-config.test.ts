/**
 * The example app's configuration and error wording, DOM-free: the query string wins over
 * build-time variables, bad values are refused with a message, and error answers read well.
 */
import { expect, it } from 'vitest';
import { AppConfigError, defaultApiBaseUrl, readAppConfig } from '../../examples/app/src/config.js';
import { describeFailure } from '../../examples/app/src/describe-failure.js';

it('defaults to the mock inside the page at the mock server address', () => {
  expect(readAppConfig({ search: '' })).toEqual({ apiBaseUrl: defaultApiBaseUrl, mock: 'msw' });
});

it('takes the API base URL and mode from the query string over build-time variables', () => {
  const env = { VITE_EVIDENCE_API_URL: 'https://env.example', VITE_EVIDENCE_MOCK: 'msw' };
  expect(readAppConfig({ search: '?api=http://127.0.0.1:4010&mock=off&scenario=slow-pass', env })).toEqual({
    apiBaseUrl: 'http://127.0.0.1:4010',
    mock: 'off',
    scenario: 'slow-pass',
  });
  expect(readAppConfig({ search: '', env })).toEqual({ apiBaseUrl: 'https://env.example', mock: 'msw' });
});

it('accepts a path as the API base URL', () => {
  expect(readAppConfig({ search: '?api=/api' }).apiBaseUrl).toBe('/api');
});

it('refuses values it cannot use, saying which', () => {
  expect(() => readAppConfig({ search: '?api=not a url' })).toThrow(AppConfigError);
  expect(() => readAppConfig({ search: '?mock=maybe' })).toThrow(/mock must be 'msw' or 'off'/);
  expect(() => readAppConfig({ search: '?scenario=../etc' })).toThrow(/scenario must be/);
});

it('describes an Error body with its code, message, advice and Retry-After', () => {
  const failure = describeFailure({
    status: 429,
    retryAfter: '3',
    body: { code: 'rate_limited', message: 'Forced by scenario.' },
  });
  expect(failure).toEqual({
    status: 429,
    headline: '429 Too Many Requests',
    code: 'rate_limited',
    message: 'Forced by scenario.',
    advice: 'Too many requests. Wait for the time given, then try again. Retry after 3 s.',
    retryAfterSeconds: 3,
  });
});

it('says so when an error answer has no Error body', () => {
  const failure = describeFailure({ status: 502, body: '<html>bad gateway</html>' });
  expect(failure.headline).toBe('502 Bad Gateway');
  expect(failure.code).toBe('');
  expect(failure.message).toContain('no Error body');
});
