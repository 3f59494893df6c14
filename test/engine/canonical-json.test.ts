/**
 * The request digest's canonical form: RFC 8785 (JCS).
 */
import { expect, it } from 'vitest';
import { canonicalJson, requestDigest } from '../../src/engine/canonical-json.js';

it('serialises the RFC 8785 section 3.2.2 sample exactly', () => {
  const input = JSON.parse(
    '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
  );
  expect(canonicalJson(input)).toBe(
    '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
  );
});

it('sorts member names by UTF-16 code units, as RFC 8785 requires', () => {
  expect(canonicalJson({ '\u{1F600}': 1, '\uFB33': 2, a: 3, B: 4 })).toBe('{"B":4,"a":3,"\u{1F600}":1,"\uFB33":2}');
});

it('gives the same digest to the same value whatever the key order, and another to another value', async () => {
  const a = await requestDigest({ x: 1, y: [1, { b: 2, a: 1 }] });
  const b = await requestDigest({ y: [1, { a: 1, b: 2 }], x: 1 });
  expect(a).toMatch(/^[0-9a-f]{64}$/);
  expect(a).toBe(b);
  expect(await requestDigest({ x: 2, y: [1, { a: 1, b: 2 }] })).not.toBe(a);
});

it('digests as SHA-256 over the UTF-8 of the canonical JSON: Node’s hash and Web Crypto agree', async () => {
  // requestDigest uses node:crypto where it exists and Web Crypto in browsers; both must give
  // the value docs/assumptions.md A-5 states, non-ASCII text included.
  for (const value of [
    { b: 1, a: [1, 2] },
    { text: 'é€\u{1F600}', n: 1e-7 },
  ]) {
    const bytes = new TextEncoder().encode(canonicalJson(value));
    const web = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (byte) => byte.toString(16).padStart(2, '0')).join(
      '',
    );
    expect(await requestDigest(value)).toBe(web);
  }
  expect(await requestDigest({ b: 1, a: [1, 2] })).toBe('94a786c3662bc7beeb598efa7d8cb58d7bea25d6c275ea9785a0230ff1f8c2ba');
});
