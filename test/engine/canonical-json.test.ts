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
