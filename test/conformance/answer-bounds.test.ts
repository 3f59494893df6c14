/**
 * The bounds on what one answer may cost the runner: the body buffer grows with the bytes kept
 * (not with the number of chunks), and an answer nested too deeply or holding too many values is
 * refused before JSON.parse, while the contract's largest valid answers still parse; credentials
 * are scrubbed from an answer as it is received, before any excerpt is cut from it.
 */
import { describe, expect, it } from 'vitest';
import { type CheckContext, received } from '../../src/conformance/checks/check.js';
import { notAServerError } from '../../src/conformance/checks/generic-checks.js';
import type { Exchange } from '../../src/conformance/exchange.js';
import { jsonTooComplex, maxJsonDepth, maxJsonValues, Transport } from '../../src/conformance/http/transport.js';
import { scrubberFor } from '../../src/conformance/secrets.js';
import { CappedBuffer } from '../../src/http/capped-buffer.js';
import { inTime, runnerTimeoutMs } from '../support/time-limits.js';

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

  it('refuses nesting deeper than the bound and more values than the bound, in one linear pass', async () => {
    expect(jsonTooComplex(`${'['.repeat(maxJsonDepth + 1)}${']'.repeat(maxJsonDepth + 1)}`)).toBe(
      `answer nested deeper than ${maxJsonDepth} levels`,
    );
    const started = performance.now();
    expect(jsonTooComplex(`${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}`)).toMatch(/nested deeper than/);
    expect(jsonTooComplex(`[${Array.from({ length: 1_300_000 }, () => '{}').join(',')}]`)).toBe('answer had more than 100,000 JSON values');
    // Ends: a pass that backtracked or recursed per level would not (its speed is the bench's).
    expect(performance.now() - started).toBeLessThan(inTime());
  });
});

describe('answers refused as too complex', () => {
  it('say what was wrong with them, not that they were not whole', async () => {
    const nested = `${'['.repeat(maxJsonDepth + 1)}${']'.repeat(maxJsonDepth + 1)}`;
    const many = `[${Array.from({ length: maxJsonValues + 1 }, () => '1').join(',')}]`;
    for (const [body, reason] of [
      [nested, 'answer nested deeper than 64 levels'],
      [many, 'answer had more than 100,000 JSON values'],
    ] as const) {
      const transport = new Transport({
        baseUrl: 'http://target.test',
        timeoutMs: runnerTimeoutMs,
        fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } }),
      });
      const result = await transport.send({ method: 'GET', path: '/v0/jobs/x', headers: {} });
      const exchange = { intent: { kind: 'poll' }, response: result.response, notes: [], rateLimited: false } as unknown as Exchange;
      // A check that needs a whole answer leaves it unjudged, naming the shape; the check that sent it fails with it.
      expect(notAServerError.judge(exchange, {} as CheckContext)).toEqual({ outcome: 'skip', reason });
      expect(received(exchange)).toMatch(new RegExp(`^200, then ${reason}; it began: \\[`));
      transport.close();
    }
  });
});

describe('scrubbing at reception', () => {
  const secret = 'Bearer alice-s3cret-token-7f3a';
  // The credential straddles the 240-character excerpt of `received`: cut first, scrubbed later, a part would leak.
  const echoing = async (request: Request) =>
    new Response(JSON.stringify({ code: 'bad', message: `${'m'.repeat(190)} you sent ${request.headers.get('authorization')}` }), {
      status: 400,
      headers: { 'content-type': 'application/json', 'x-echo': request.headers.get('authorization') ?? '' },
    });

  it('takes credentials out of the body and headers as they are received, so no excerpt holds part of one', async () => {
    const scrubber = scrubberFor({ headers: { Authorization: secret } });
    const transport = new Transport({
      baseUrl: 'http://target.test',
      timeoutMs: runnerTimeoutMs,
      fetch: echoing,
      scrub: (text) => scrubber.scrub(text),
    });
    const result = await transport.send({ method: 'GET', path: '/v0/jobs/x', headers: { Authorization: secret } });
    expect(result.response?.bodyText).not.toContain('s3cret');
    expect(result.response?.headers['x-echo']).toBe('[REDACTED]');
    expect((result.response?.json as { message: string } | undefined)?.message).toMatch(/you sent \[REDACTED\]$/);
    const excerpt = received({ response: result.response } as unknown as Exchange);
    expect(excerpt).not.toMatch(/Bearer|alice|s3cr/);
    transport.close();
  });

  it('without a scrub function, the same excerpt would hold a part of the credential (what the final scrub misses)', async () => {
    const transport = new Transport({ baseUrl: 'http://target.test', timeoutMs: runnerTimeoutMs, fetch: echoing });
    const result = await transport.send({ method: 'GET', path: '/v0/jobs/x', headers: { Authorization: secret } });
    const excerpt = received({ response: result.response } as unknown as Exchange);
    expect(scrubberFor({ headers: { Authorization: secret } }).scrub(excerpt)).toMatch(/you sent Bearer alice-s3…$/);
    transport.close();
  });
});
