/**
 * The one scrubber the runner and the proxy write through, against the leaks an attacker's test
 * found in the proxy's HAR, reports and log: each form of each credential is scrubbed from text
 * and from a HAR cassette; credential headers and parameters are replaced whatever their length;
 * what a scrubber learns is bounded; and with nothing to scrub, text comes back as it was.
 */
import { describe, expect, it } from 'vitest';
import { redacted } from '../../src/conformance/http/curl.js';
import { buildHar, type CassetteEntry, harPlaceholder, scrubCredentials } from '../../src/conformance/report/har.js';
import { defaultCredentialHeaders, indexedFrom, Scrubber } from '../../src/conformance/secrets.js';

const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;

interface Attack {
  readonly name: string;
  /** The exchange that carries the credential. */
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly answerHeaders?: Readonly<Record<string, string | string[]>>;
  /** What the upstream sends back later (in the same exchange's body, and in a later exchange's). */
  readonly echo: string;
  /** Strings that must appear nowhere in what is written. */
  readonly leaks: readonly string[];
}

const attacks: readonly Attack[] = [
  {
    name: 'a Basic password echoed decoded',
    url: 'http://upstream.test/v0/jobs/job_1',
    headers: { authorization: basic('admin:hunter2-pass-9') },
    echo: '{"user":"admin","password":"hunter2-pass-9","pair":"admin:hunter2-pass-9"}',
    leaks: ['hunter2-pass-9', Buffer.from('admin:hunter2-pass-9').toString('base64')],
  },
  {
    name: 'a bearer token echoed percent-encoded, upper and lower-case hex',
    url: 'http://upstream.test/health',
    headers: { Authorization: 'Bearer tok/en+with=chars_1234' },
    echo: 'seen ?t=tok%2Fen%2Bwith%3Dchars_1234 and tok%2fen%2bwith%3dchars_1234',
    leaks: ['tok/en+with=chars_1234', 'tok%2Fen%2Bwith%3Dchars_1234', 'tok%2fen%2bwith%3dchars_1234'],
  },
  {
    name: 'an api-key header echoed',
    url: 'http://upstream.test/health',
    headers: { 'api-key': 'ak_live_0123456789' },
    echo: '{"key":"ak_live_0123456789"}',
    leaks: ['ak_live_0123456789'],
  },
  {
    name: 'an X-Auth-Token header (any case) echoed',
    url: 'http://upstream.test/health',
    headers: { 'X-AUTH-TOKEN': 'xat-9f8e7d6c5b4a' },
    echo: 'token xat-9f8e7d6c5b4a accepted',
    leaks: ['xat-9f8e7d6c5b4a'],
  },
  {
    name: 'credential query parameters, in any case, echoed as a form',
    url: 'http://upstream.test/v0/jobs?API_KEY=qk-1234567890&access_token=correct+horse+battery&page=2',
    echo: 'you asked with qk-1234567890 and correct horse battery, correct%20horse%20battery, correct+horse+battery',
    leaks: ['qk-1234567890', 'correct horse battery', 'correct%20horse%20battery', 'correct+horse+battery'],
  },
  {
    name: 'a path?query target with a token',
    url: '/v0/jobs/job_1?token=pq-token-abcdefgh',
    echo: 'token pq-token-abcdefgh',
    leaks: ['pq-token-abcdefgh'],
  },
  {
    name: 'user:pass@ in an absolute target URL',
    url: 'http://alice:pa55w0rd-xyz@upstream.test/health',
    echo: 'hello alice, your password pa55w0rd-xyz',
    leaks: ['pa55w0rd-xyz', 'alice:pa55w0rd-xyz'],
  },
  {
    name: 'a JSON-escaped token, with \\/ as PHP writes it',
    url: 'http://upstream.test/health',
    headers: { 'x-api-key': 'se"cret/value-123' },
    echo: '{"a":"se\\"cret/value-123","b":"se\\"cret\\/value-123"}',
    leaks: ['se"cret/value-123', 'se\\"cret/value-123', 'se\\"cret\\/value-123'],
  },
  {
    name: 'an HTML-escaped token, quote as &#39;, &#x27; or &apos;',
    url: 'http://upstream.test/health',
    headers: { 'x-access-token': "<se&cret'value>-123" },
    echo: "<p>&lt;se&amp;cret&#x27;value&gt;-123 &lt;se&amp;cret&apos;value&gt;-123 &lt;se&amp;cret'value&gt;-123</p>",
    leaks: ['se&amp;cret', 'cret&#x27;value', 'cret&apos;value', "cret'value"],
  },
];

describe.each(attacks)('$name', (attack) => {
  it('is scrubbed from text once learnt from the request', () => {
    const scrubber = new Scrubber();
    scrubber.learnFromRequest({ url: attack.url, ...(attack.headers ? { headers: attack.headers } : {}) });
    const written = [
      scrubber.scrub(attack.echo),
      scrubber.scrubUrl(attack.url),
      JSON.stringify(scrubber.scrubHeaders(attack.headers ?? {})),
    ].join('\n');
    for (const leak of attack.leaks) expect(written).not.toContain(leak);
    expect(written).toContain(redacted);
  });

  it('is scrubbed from a HAR cassette: the request, its answer and a later answer echoing it', () => {
    const har = buildHar({
      creator: { name: 'test', version: '0' },
      entries: [
        {
          startedAt: 0,
          durationMs: 1,
          request: { method: 'GET', url: attack.url, headers: attack.headers ?? {} },
          response: { status: 200, headers: { 'content-type': 'application/json', 'x-echo': attack.echo }, body: attack.echo },
          comment: `sent ${attack.echo}`,
        },
        {
          startedAt: 1,
          durationMs: 1,
          request: { method: 'GET', url: 'http://upstream.test/debug', headers: {} },
          response: { status: 200, headers: {}, body: attack.echo },
        },
      ],
    });
    const text = JSON.stringify(har);
    for (const leak of attack.leaks) expect(text).not.toContain(leak);
    expect(text).toContain(harPlaceholder);
  });
});

it('scrubs a value the upstream set with Set-Cookie wherever it is echoed later', () => {
  const scrubber = new Scrubber();
  scrubber.learnFromRequest({ url: '/login', headers: {} });
  scrubber.learnFromAnswer({ headers: { 'set-cookie': ['sid="sess-0123456789abcdef"; Path=/; HttpOnly', 'theme=dark; Path=/'] } });
  expect(scrubber.scrub('{"session":"sess-0123456789abcdef"}')).toBe(`{"session":"${redacted}"}`);
  // The cookie's attributes are not secrets: a Path or an Expires date stays readable.
  expect(scrubber.scrub('Path=/; HttpOnly; theme')).toBe('Path=/; HttpOnly; theme');
  const har = buildHar({
    creator: { name: 'test', version: '0' },
    entries: [
      {
        startedAt: 0,
        durationMs: 1,
        request: { method: 'POST', url: 'http://upstream.test/login', headers: {} },
        response: { status: 204, headers: { 'set-cookie': ['sid=sess-0123456789abcdef; Path=/'] }, body: '' },
      },
      {
        startedAt: 1,
        durationMs: 1,
        request: { method: 'GET', url: 'http://upstream.test/whoami', headers: {} },
        response: { status: 200, headers: {}, body: '{"session":"sess-0123456789abcdef"}' },
      },
    ],
  });
  expect(JSON.stringify(har)).not.toContain('sess-0123456789abcdef');
  expect(har.log.entries[0]!.response.headers).toEqual([{ name: 'set-cookie', value: harPlaceholder }]);
  expect(har.log.entries[1]!.response.content.text).toBe(`{"session":"${harPlaceholder}"}`);
});

it('replaces the values of credential headers and parameters whatever their length, keeping the names', () => {
  const scrubber = new Scrubber({ credentialHeaders: ['X-Team-Key'], credentialParameters: ['Ticket'] });
  expect(scrubber.scrubHeaders({ 'x-api-key': 'abc', 'X-Team-Key': ['k1', 'k2'], accept: 'abc' })).toEqual({
    'x-api-key': redacted,
    'X-Team-Key': [redacted, redacted],
    accept: 'abc',
  });
  expect(scrubber.scrubUrl('http://alice:pw@upstream.test/x?api_key=abc&page=2&TICKET=t&sig=#access_token=xyz&token_type=bearer')).toBe(
    `http://upstream.test/x?api_key=${redacted}&page=2&TICKET=${redacted}&sig=#access_token=${redacted}&token_type=bearer`,
  );
  expect(scrubber.scrubUrl('/v0/jobs?Api%5Fkey=short')).toBe(`/v0/jobs?Api%5Fkey=${redacted}`);
  // A URL in a Location header too (OAuth's implicit grant redirects with the token in it).
  expect(scrubber.scrubHeaders({ location: '/cb#access_token=at' })).toEqual({ location: `/cb#access_token=${redacted}` });
  // A short value is not scrubbed from free text: "abc" would blank ordinary words.
  scrubber.learnFromRequest({ headers: { 'x-api-key': 'abc' } });
  expect(scrubber.scrub('abc')).toBe('abc');
});

it('scrubs a learnt secret that overlaps a given one as one span', () => {
  const scrubber = new Scrubber({ secrets: ['abcdefghijklmnop'] });
  scrubber.learnFromRequest({ headers: { 'x-api-key': 'ijklmnopqrstuvwx' } });
  expect(scrubber.scrub('<abcdefghijklmnopqrstuvwx>')).toBe(`<${redacted}>`);
  const view = scrubber.forExchange({ requestHeaders: { authorization: 'Bearer qrstuvwxyz012345' } });
  expect(view.scrub('<abcdefghijklmnopqrstuvwxyz012345>')).toBe(`<${redacted}>`);
  // A view's own secrets are not learnt by the scrubber it came from.
  expect(scrubber.scrub('qrstuvwxyz012345')).toBe('qrstuvwxyz012345');
});

it('with nothing to scrub, returns the same text, headers and URL, and learns nothing from a plain request', () => {
  const scrubber = new Scrubber();
  scrubber.learnFromRequest({
    url: '/v0/jobs/job_1?page=2',
    headers: { accept: 'application/json', 'user-agent': 'test', 'content-type': 'application/json' },
  });
  scrubber.learnFromAnswer({ headers: { 'content-type': 'application/json', location: '/v0/jobs/job_2' } });
  expect(scrubber.active).toBe(false);
  expect(scrubber.learntCount).toBe(0);
  const text = '{"jobId":"job_1","status":"QUEUED"}';
  expect(scrubber.scrub(text)).toBe(text);
  const headers = { accept: 'application/json' };
  expect(scrubber.scrubHeaders(headers)).toBe(headers);
  expect(scrubber.scrubUrl('/v0/jobs/job_1?page=2')).toBe('/v0/jobs/job_1?page=2');
});

it('keeps the last maxLearntSecrets values learnt, refreshing one learnt again', () => {
  const scrubber = new Scrubber({ maxLearntSecrets: 3 });
  const tokens = ['token-number-0001', 'token-number-0002', 'token-number-0003', 'token-number-0004'];
  for (const token of tokens.slice(0, 3)) scrubber.learnFromRequest({ headers: { 'x-api-key': token } });
  // 0001 used again: it is the newest now, and 0002 the oldest.
  scrubber.learnFromRequest({ headers: { 'x-api-key': tokens[0]! } });
  scrubber.learnFromRequest({ headers: { 'x-api-key': tokens[3]! } });
  expect(scrubber.learntCount).toBe(3);
  expect(tokens.map((token) => scrubber.scrub(token))).toEqual([redacted, 'token-number-0002', redacted, redacted]);
  // A long session stays within the bound.
  for (let index = 0; index < 10_000; index += 1) scrubber.learnFromRequest({ url: `/x?access_token=session-token-${index}` });
  expect(scrubber.learntCount).toBe(3);
  expect(scrubber.scrub('session-token-9999 session-token-9996')).toBe(`${redacted} session-token-9996`);
});

it('keeps a value sent on every request the newest, however often it comes in a row', () => {
  const scrubber = new Scrubber({ maxLearntSecrets: 3 });
  const [a, b, c, d] = ['token-number-000a', 'token-number-000b', 'token-number-000c', 'token-number-000d'];
  for (const token of [a, b, a, a, a, c, d]) scrubber.learnHeader('authorization', `Bearer ${token}`);
  expect([a, b, c, d].map((token) => scrubber.scrub(token))).toEqual([redacted, b, redacted, redacted]);
});

it('learns one header with learnHeader as learnFromRequest learns it', () => {
  const headers: Record<string, string> = {
    authorization: basic('alice:correct-horse-battery'),
    Cookie: 'session=cookie-value-0001; theme=dark',
    referer: 'https://app.example/cb?access_token=referer-token-0001',
    accept: 'application/json-accept-value',
  };
  const whole = new Scrubber();
  whole.learnFromRequest({ headers });
  const oneByOne = new Scrubber();
  for (const [name, value] of Object.entries(headers)) oneByOne.learnHeader(name, value);
  const text = `correct-horse-battery alice:correct-horse-battery cookie-value-0001 referer-token-0001 application/json-accept-value`;
  expect(oneByOne.scrub(text)).toBe(whole.scrub(text));
  expect(oneByOne.scrub(text)).toBe(`${redacted} ${redacted} ${redacted} ${redacted} application/json-accept-value`);
  expect(oneByOne.learntCount).toBe(whole.learntCount);
});

it('keeps learnt patterns within maxLearntCharacters, forgetting the oldest', () => {
  const scrubber = new Scrubber({ maxLearntCharacters: 1024 });
  const long = (index: number) => `${index}`.padStart(8, '0').padEnd(300, 'x');
  for (let index = 0; index < 4; index += 1) scrubber.learnFromRequest({ headers: { 'x-api-key': long(index) } });
  expect(scrubber.learntCount).toBe(3);
  expect(scrubber.scrub(long(0))).toBe(long(0));
  expect(scrubber.scrub(long(3))).toBe(redacted);
  // A value larger than the whole budget is not learnt, and its header is still replaced by name.
  scrubber.learnFromRequest({ headers: { 'x-api-key': 'y'.repeat(2000) } });
  expect(scrubber.scrub(long(3))).toBe(redacted);
  expect(scrubber.scrubHeaders({ 'x-api-key': 'y'.repeat(2000) })).toEqual({ 'x-api-key': redacted });
});

it(`finds many secrets at once (${indexedFrom} patterns or more) as indexOf would, on seeded texts`, () => {
  const seed = 22;
  let state = seed;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  const alphabet = 'abcd';
  const word = (length: number) => Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  // Secrets of letters alone: each has no other form, so indexOf over them is the reference.
  const secrets = [...new Set(Array.from({ length: 200 }, () => word(8 + Math.floor(random() * 6))))];
  const scrubber = new Scrubber();
  for (const secret of secrets) scrubber.learnFromRequest({ headers: { 'x-api-key': secret } });
  const reference = (text: string) => {
    const covered = new Array<boolean>(text.length).fill(false);
    for (const secret of secrets)
      for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1))
        for (let index = at; index < at + secret.length; index += 1) covered[index] = true;
    let result = '';
    for (let index = 0; index < text.length; index += 1)
      if (!covered[index]) result += text[index];
      else if (index === 0 || !covered[index - 1]) result += redacted;
    return result;
  };
  for (let round = 0; round < 200; round += 1) {
    const text = word(Math.floor(random() * 200));
    expect(scrubber.scrub(text), `seed ${seed}, round ${round}: ${text}`).toBe(reference(text));
  }
  expect(scrubber.scrub('short')).toBe('short');
});

it('finds many tokens sharing their start (JWTs), and forgets the oldest of many', () => {
  const jwt = (index: number) => `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLSR7aW5kZXh9In0.signature-${index}-x`;
  const scrubber = new Scrubber({ maxLearntSecrets: 200 });
  for (let index = 0; index < 300; index += 1) {
    scrubber.learnFromRequest({ headers: { authorization: `Bearer ${jwt(index)}` } });
    // Scrubbing as it learns, as a proxy does: the index is kept up to date, not built once at the end.
    if (index % 50 === 30) expect(scrubber.scrub(jwt(index))).toBe(redacted);
  }
  expect(scrubber.learntCount).toBe(200);
  // The first 100 were forgotten; the last 200 are found, each where it is, among others' starts.
  expect(scrubber.scrub(`[${jwt(99)}]`)).toBe(`[${jwt(99)}]`);
  for (const index of [100, 150, 299])
    expect(scrubber.scrub(`{"t":"${jwt(index)}","u":"${jwt(5)}"}`)).toBe(`{"t":"${redacted}","u":"${jwt(5)}"}`);
  expect(scrubber.scrub(`Bearer ${jwt(200)}Bearer ${jwt(201)}`)).toBe(redacted);
});

it('refuses a bound or a name it cannot use, naming the option', () => {
  expect(() => new Scrubber({ maxLearntSecrets: 0 })).toThrow(/maxLearntSecrets must be a whole number from 1, got 0/);
  expect(() => new Scrubber({ maxLearntCharacters: 10.5 })).toThrow(/maxLearntCharacters/);
  expect(() => new Scrubber({ credentialHeaders: ['X Bad'] })).toThrow(/credentialHeaders: "X Bad" is not a header name/);
  expect(() => new Scrubber({ credentialParameters: [''] })).toThrow(/credentialParameters/);
  expect(() => new Scrubber({ placeholder: '' })).toThrow(/placeholder/);
});

it('names the usual credential headers, and still takes the secrets alone', () => {
  for (const name of [
    'authorization',
    'proxy-authorization',
    'cookie',
    'set-cookie',
    'api-key',
    'x-api-key',
    'x-auth-token',
    'x-access-token',
    'private-token',
    'x-mock-token',
    'x-csrf-token',
  ])
    expect(defaultCredentialHeaders).toContain(name);
  expect(new Scrubber(['a-given-secret-1']).scrub('a-given-secret-1')).toBe(redacted);
});

it('keeps scrubCredentials for the proxy until it uses the scrubber, stronger than before', () => {
  const headers: CassetteEntry['request']['headers'] = { authorization: basic('admin:hunter2-pass-9'), 'x-auth-token': 'xat-9f8e7d6c5b4a' };
  expect(scrubCredentials('hunter2-pass-9 xat-9f8e7d6c5b4a', headers)).toBe(`${harPlaceholder} ${harPlaceholder}`);
});
