/**
 * The scrubber that keeps credentials out of everything the runner prints or writes: which
 * pieces of a header value count as secrets, which are too short to scrub from free text, and
 * how several (or overlapping) secrets in one text are scrubbed.
 */
import { expect, it } from 'vitest';
import { redacted } from '../../src/conformance/http/curl.js';
import { credentialsFromBaseUrl, Scrubber, scrubberFor, secretFragments, shortestScrubbed } from '../../src/conformance/secrets.js';

it('takes the value, its token and, for Basic, the decoded pair and the password as fragments', () => {
  expect(secretFragments('Bearer alice-s3cret-token')).toEqual(['Bearer alice-s3cret-token', 'alice-s3cret-token']);
  const basic = `Basic ${Buffer.from('admin:hunter2-pass').toString('base64')}`;
  expect(secretFragments(basic)).toEqual([
    basic,
    Buffer.from('admin:hunter2-pass').toString('base64'),
    'admin:hunter2-pass',
    'hunter2-pass',
  ]);
  expect(secretFragments('  an-api-key-without-scheme ')).toEqual(['an-api-key-without-scheme']);
});

it('takes every long word as a fragment when the first word is no registered scheme (the credential may come first)', () => {
  expect(secretFragments('sk_live_4f9c2e7a1b8d3c6e v2')).toEqual(['sk_live_4f9c2e7a1b8d3c6e v2', 'v2', 'sk_live_4f9c2e7a1b8d3c6e']);
  expect(secretFragments('Token abcdef123456 extra-long-part')).toEqual([
    'Token abcdef123456 extra-long-part',
    'abcdef123456 extra-long-part',
    'abcdef123456',
    'extra-long-part',
  ]);
  // A registered scheme, whatever its case, is a scheme: its words are not taken apart.
  expect(secretFragments('bearer alice-s3cret-token and-more')).toEqual([
    'bearer alice-s3cret-token and-more',
    'alice-s3cret-token and-more',
  ]);
  expect(secretFragments('DPoP alice-s3cret-token')).toEqual(['DPoP alice-s3cret-token', 'alice-s3cret-token']);
  const scrubber = new Scrubber();
  scrubber.learnFromRequest({ url: '/x', headers: { authorization: 'sk_live_4f9c2e7a1b8d3c6e v2' } });
  expect(scrubber.scrub('GET /v0/jobs/sk_live_4f9c2e7a1b8d3c6e 404; the v2 API')).toBe(`GET /v0/jobs/${redacted} 404; the v2 API`);
});

it('scrubs a header value, its token alone, and its JSON, percent-encoded and HTML forms', () => {
  const scrubber = scrubberFor({ headers: { Authorization: 'Bearer to"k&en/with<odd>chars' } });
  expect(scrubber.scrub('header: Bearer to"k&en/with<odd>chars.')).toBe(`header: ${redacted}.`);
  expect(scrubber.scrub('token to"k&en/with<odd>chars alone')).toBe(`token ${redacted} alone`);
  expect(scrubber.scrub(JSON.stringify({ echo: 'to"k&en/with<odd>chars' }))).toBe(`{"echo":"${redacted}"}`);
  expect(scrubber.scrub(`?t=${encodeURIComponent('to"k&en/with<odd>chars')}`)).toBe(`?t=${redacted}`);
  expect(scrubber.scrub('<p>to&quot;k&amp;en/with&lt;odd&gt;chars</p>')).toBe(`<p>${redacted}</p>`);
});

it(`does not scrub fragments shorter than ${shortestScrubbed} characters from free text, and says which`, () => {
  const scrubber = scrubberFor({ headers: { Authorization: 'Bearer test' } });
  expect(scrubber.tooShort).toEqual(['test']);
  // The whole value still goes; the runner's own words ("<testsuites>", "latest") stay whole.
  expect(scrubber.scrub('sent Bearer test to <testsuites> in the latest test')).toBe(`sent ${redacted} to <testsuites> in the latest test`);
  expect(new Scrubber(['short']).active).toBe(false);
});

it('scrubs string values deeply but never the keys of a report', () => {
  const scrubber = scrubberFor({ headers: { 'X-Api-Key': 'secret-key-1234' } });
  const scrubbed = scrubber.scrubDeep({
    'secret-key-1234': 'a key that happens to equal the secret',
    nested: [{ received: 'echo secret-key-1234' }, 42, null],
  });
  expect(scrubbed).toEqual({
    'secret-key-1234': 'a key that happens to equal the secret',
    nested: [{ received: `echo ${redacted}` }, 42, null],
  });
});

it('moves userinfo out of a base URL into Basic credentials, and scrubs every form of it', () => {
  const credentials = credentialsFromBaseUrl('http://admin:hunter2%2Fpass@127.0.0.1:8080/api');
  expect(credentials.baseUrl).toBe('http://127.0.0.1:8080/api');
  expect(credentials.authorization).toBe(`Basic ${Buffer.from('admin:hunter2/pass').toString('base64')}`);
  const scrubber = scrubberFor({ extra: credentials.secrets });
  for (const form of ['hunter2/pass', 'hunter2%2Fpass', 'admin:hunter2/pass', credentials.authorization!])
    expect(scrubber.scrub(`seen ${form} here`)).toBe(`seen ${redacted} here`);
  // A user name alone is the credential (https://TOKEN@host).
  const token = credentialsFromBaseUrl('https://ghp_tokenonly1234@example.test');
  expect(scrubberFor({ extra: token.secrets }).scrub('ghp_tokenonly1234')).toBe(redacted);
  expect(credentialsFromBaseUrl('http://127.0.0.1:8080')).toEqual({ baseUrl: 'http://127.0.0.1:8080', secrets: [] });
});

it("scrubs several callers' secrets in one text, each wherever it appears", () => {
  const scrubber = scrubberFor({
    headers: { Authorization: 'Bearer alice-s3cret-token' },
    secondCallerHeaders: { Authorization: 'Bearer bob-s3cret-token-2' },
    headerValues: ['team-key-from-a-command-line'],
  });
  expect(
    scrubber.scrub('alice-s3cret-token, then Bearer bob-s3cret-token-2, team-key-from-a-command-line and alice-s3cret-token again'),
  ).toBe(`${redacted}, then ${redacted}, ${redacted} and ${redacted} again`);
});

it('scrubs overlapping secrets as one span, leaving no tail of either', () => {
  const scrubber = new Scrubber(['abcdefghijklmnop', 'ijklmnopqrstuvwx']);
  expect(scrubber.scrub('<abcdefghijklmnopqrstuvwx>')).toBe(`<${redacted}>`);
  expect(scrubber.scrub('<ijklmnopqrstuvwx|abcdefghijklmnop>')).toBe(`<${redacted}|${redacted}>`);
  // One secret inside another, and a secret repeated so its occurrences overlap.
  expect(new Scrubber(['outer-secret-value', 'secret-v']).scrub('[outer-secret-value]')).toBe(`[${redacted}]`);
  expect(new Scrubber(['abababab']).scrub(`x${'ab'.repeat(1000)}x`)).toBe(`x${redacted}x`);
});
