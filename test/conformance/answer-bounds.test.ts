/**
 * The bounds on what one answer may cost the runner: the body buffer grows with the bytes kept
 * (not with the number of chunks), and an answer nested too deeply or holding too many values is
 * refused before JSON.parse, while the contract's largest valid answers still parse.
 */
import { describe, expect, it } from 'vitest';
import { CappedBuffer } from '../../src/conformance/http/bounded-client.js';
import { jsonTooComplex, maxJsonDepth, maxJsonValues } from '../../src/conformance/http/transport.js';

describe('CappedBuffer', () => {
  it('copies 1-byte chunks into one buffer, keeps what fits under the cap, and counts every byte', () => {
    const buffer = new CappedBuffer(1000);
    const slab = Buffer.alloc(64 * 1024, 0x61);
    for (let index = 0; index < 999; index += 1) expect(buffer.add(slab.subarray(index, index + 1))).toBe(true);
    expect(buffer.add(Buffer.from('bcd'))).toBe(false);
    expect(buffer.bytes).toBe(1002);
    const body = buffer.body;
    expect(body.length).toBe(1000);
    expect(body.toString('latin1')).toBe(`${'a'.repeat(999)}b`);
    // The kept bytes are a copy, not a view of the chunk they came from.
    expect(body.buffer).not.toBe(slab.buffer);
    expect(body.buffer.byteLength).toBeLessThanOrEqual(1000);
  });

  it('keeps only the start of an answer that is not whole', () => {
    const buffer = new CappedBuffer(1024 * 1024);
    buffer.add(Buffer.alloc(20_000, 0x62));
    expect(buffer.head.length).toBe(8 * 1024);
  });
});

describe('jsonTooComplex', () => {
  it("lets the contract's largest valid answers through", () => {
    const job = JSON.stringify({
      jobId: `job_${'A'.repeat(124)}`,
      status: 'COMPLETE',
      evaluation: 'PASS',
      limitations: Array.from({ length: 64 }, () => `[{,"\\"${'x'.repeat(2040)}`),
    });
    expect(jsonTooComplex(job)).toBeUndefined();
    const verification = JSON.stringify({
      integrity: 'VALID',
      evaluation: 'PASS',
      reasons: Array.from({ length: 64 }, () => 'r'.repeat(2048)),
    });
    expect(jsonTooComplex(verification)).toBeUndefined();
    expect(jsonTooComplex(`${'['.repeat(maxJsonDepth)}${']'.repeat(maxJsonDepth)}`)).toBeUndefined();
    expect(jsonTooComplex('<html>' + ','.repeat(maxJsonValues * 2))).toBeUndefined();
  });

  it('refuses nesting deeper than the bound and more values than the bound, in one linear pass', () => {
    expect(jsonTooComplex(`${'['.repeat(maxJsonDepth + 1)}${']'.repeat(maxJsonDepth + 1)}`)).toBe(
      `answer too deeply nested (over ${maxJsonDepth} levels)`,
    );
    const started = performance.now();
    expect(jsonTooComplex(`${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}`)).toMatch(/too deeply nested/);
    expect(jsonTooComplex(`[${Array.from({ length: 1_300_000 }, () => '{}').join(',')}]`)).toBe(
      `answer has too many values (over ${maxJsonValues})`,
    );
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
