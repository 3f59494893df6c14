/**
 * Drift findings and the passive learner's notes stay bounded however much hostile traffic the
 * proxy sees (issue 42, deliver 5): a million answers with a million different codes keep one
 * finding per entry and a few values per entry, each capped, and no credential.
 */
import { describe, expect, it } from 'vitest';
import { schemeOf } from '../../src/cli/write-profile.js';
import type { Exchange } from '../../src/conformance/exchange.js';
import { Scrubber } from '../../src/conformance/secrets.js';
import { resolveProfile } from '../../src/profile/profile.js';
import { driftBounds, ProfileDriftWatcher } from '../../src/proxy/profile-drift.js';
import { ProfileLearning } from '../../src/proxy/profile-learning.js';
import type { WatchedExchange } from '../../src/proxy/profile-watch.js';

const secret = 'Bearer s3cret-token-that-must-never-show';

/** A client's malformed JSON body, answered 400 with `code` (a hostile upstream varies it every time). */
function malformedJson(id: number, code: string, extraHeader = ''): WatchedExchange {
  const json = { code, message: `refused ${'x'.repeat(extraHeader.length)}` };
  const exchange: Exchange = {
    id,
    operationId: 'createEvaluation',
    caller: 1,
    intent: { kind: 'malformed-json', expected: { status: 'any-4xx', because: 'test' } },
    request: { method: 'POST', url: 'http://upstream.test/v0/evaluations', headers: {}, body: '{"a":' },
    response: { status: 400, headers: {}, contentType: 'application/json', bodyText: JSON.stringify(json), json },
    notes: [],
    rateLimited: false,
    durationMs: 1,
  };
  return {
    exchange,
    request: {
      method: 'POST',
      url: 'http://upstream.test/v0/evaluations',
      headers: { authorization: secret, 'content-type': 'application/json', 'idempotency-key': `k${id}` },
      body: '{"a":',
    },
  };
}

describe('drift and passive learning under hostile traffic', () => {
  it('keeps one finding per entry, capped, counting every drifting exchange, with no credential', () => {
    const scrubber = new Scrubber();
    scrubber.learnFromRequest({ url: '/v0/evaluations', headers: { authorization: secret } });
    const profile = resolveProfile({ profile: 2, 'A-21': { 'malformed-json': { status: 400, code: 'json.bad' } } }, 'test.yaml');
    const watcher = new ProfileDriftWatcher({ profile, scrubber, credentialHeader: 'Authorization' });
    const exchanges = 20_000;
    for (let id = 1; id <= exchanges; id += 1) {
      const drifted = watcher.see(malformedJson(id, `code-${id}-${'y'.repeat(id % 70)}`));
      expect(drifted).toEqual(['A-21.malformed-json']);
    }
    const findings = watcher.findings();
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ entry: 'A-21.malformed-json', count: exchanges, exchange: 1 });
    expect(watcher.driftCount).toBe(exchanges);
    const text = JSON.stringify(findings);
    expect(text).not.toContain('s3cret');
    for (const line of [findings[0]!.seen, findings[0]!.problem, findings[0]!.expected])
      expect(line.length).toBeLessThanOrEqual(driftBounds.maxLineChars);
    expect(findings[0]!.request.length).toBeLessThanOrEqual(driftBounds.maxRequestChars);
  });

  it('keeps a bounded number of answers per entry while learning, and writes no credential', () => {
    const scrubber = new Scrubber();
    scrubber.learnFromRequest({ url: '/v0/evaluations', headers: { authorization: secret } });
    const learning = new ProfileLearning({ isCredentialHeader: (name) => scrubber.isCredentialHeader(name), schemeOf });
    for (let id = 1; id <= 5_000; id += 1) learning.see(malformedJson(id, `code-${id}`));
    const result = learning.result((text) => scrubber.scrub(text));
    // 5,000 different answers to one situation: a disagreement, never an entry, and only a few of them kept.
    expect(result.learnt.entries['A-21.malformed-json']).toBeUndefined();
    const disagreement = result.learnt.disagreements.find((item) => item.entry === 'A-21.malformed-json');
    expect(disagreement).toBeDefined();
    expect(disagreement!.answers.length).toBeLessThanOrEqual(64);
    expect(JSON.stringify(result)).not.toContain('s3cret');
  });
});
