/**
 * The `eh-jws-ed25519/0.1` test artifact profile (docs/artifact-profile.md): every row of the
 * decision table, the minted outcome examples, and the promise that verifyArtifact answers every
 * string with a result valid against the contract's VerificationResult schema.
 */
import fc from 'fast-check';
import { base64url, CompactSign, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { expect, it } from 'vitest';
import { codePointLength, limits, VerificationResult } from '../../src/contract/index.js';
import {
  type IssuerKeySet,
  mintArtifact,
  mintOutcomeArtifacts,
  outcomeExamples,
  profileId,
  unknownIssuer,
  verifyArtifact,
} from '../../src/engine/verification/artifact-profile.js';
import { testKeySet } from '../../src/engine/verification/test-keys.js';

const issuer = 'https://issuer.example';
const secondIssuer = 'https://second-issuer.example';
const operationId = 'op-2026-0001';
const issuedAt = 1_790_000_000;
const seed = 20261122;

async function verify(options: { artifact: string; expectedIssuer?: string; expectedOperationId?: string; keys?: IssuerKeySet }) {
  const result = await verifyArtifact({
    request: {
      artifact: options.artifact,
      expectedIssuer: options.expectedIssuer ?? issuer,
      expectedOperationId: options.expectedOperationId ?? operationId,
    },
    keys: options.keys ?? testKeySet,
  });
  // Every answer must be one the contract allows, whatever the input.
  expect(VerificationResult.safeParse(result).error?.issues).toBeUndefined();
  return result;
}

function mint(options: { evaluation?: 'PASS' | 'FAIL' | 'INDETERMINATE'; reasons?: string[]; as?: string; operationId?: string } = {}) {
  return mintArtifact({
    keys: testKeySet,
    issuer: options.as ?? issuer,
    operationId: options.operationId ?? operationId,
    evaluation: options.evaluation ?? 'PASS',
    ...(options.reasons ? { reasons: options.reasons } : {}),
    issuedAt,
  });
}

const encodeJson = (value: unknown) => base64url.encode(JSON.stringify(value));

/** Signs any payload with an issuer's test key, to build artifacts mintArtifact refuses to make. */
async function signRaw(options: { payload: unknown; signer?: string; header?: Record<string, unknown> }) {
  const jwk = testKeySet.issuers[options.signer ?? issuer]!.privateJwk!;
  const key = await importJWK(jwk as JWK, 'EdDSA');
  return new CompactSign(new TextEncoder().encode(JSON.stringify(options.payload)))
    .setProtectedHeader({ alg: 'EdDSA', typ: 'eh-artifact+jws', ...options.header })
    .sign(key);
}

const goodClaims = { iss: issuer, operationId, evaluation: 'PASS', iat: issuedAt };

// ── the minted outcome examples ─────────────────────────────────────────────────────────

it.each(Object.keys(outcomeExamples))('gives the minted %s example its documented integrity and evaluation', async (name) => {
  const cases = await mintOutcomeArtifacts({ keys: testKeySet, issuer, operationId, issuedAt });
  const example = cases[name as keyof typeof cases];
  const result = await verify({ artifact: example.artifact });
  expect({ integrity: result.integrity, evaluation: result.evaluation }).toEqual(example.expected);
  expect(result.reasons.length).toBeGreaterThan(0);
});

it('covers every row of the decision table with the outcome examples', () => {
  const rows = new Set(Object.values(outcomeExamples).map(({ expected }) => `${expected.integrity}/${expected.evaluation}`));
  expect([...rows].sort()).toEqual(['INVALID/FAIL', 'UNRESOLVED/INDETERMINATE', 'VALID/FAIL', 'VALID/INDETERMINATE', 'VALID/PASS']);
});

// ── minting ─────────────────────────────────────────────────────────────────────────────

it('mints a compact JWS with the profile header and claims', async () => {
  const artifact = await mint({ reasons: ['checked'] });
  expect(artifact.split('.')).toHaveLength(3);
  expect(decodeProtectedHeader(artifact)).toEqual({ alg: 'EdDSA', typ: 'eh-artifact+jws' });
  expect(decodeJwt(artifact)).toEqual({ iss: issuer, operationId, evaluation: 'PASS', reasons: ['checked'], iat: issuedAt });
  expect(profileId).toBe('eh-jws-ed25519/0.1');
});

it('mints the same artifact twice for the same options, since Ed25519 signatures are deterministic', async () => {
  expect(await mint()).toBe(await mint());
});

it('mints an artifact that claims the unknown issuer when asked to', async () => {
  const artifact = await mintArtifact({ keys: testKeySet, issuer, operationId, evaluation: 'PASS', tamper: 'unknown-issuer' });
  expect(decodeJwt(artifact).iss).toBe(unknownIssuer);
});

it('throws a clear error when minting for an issuer without a private key', async () => {
  const keys: IssuerKeySet = { issuers: { [issuer]: { publicJwk: testKeySet.issuers[issuer]!.publicJwk } } };
  await expect(mintArtifact({ keys, issuer, operationId, evaluation: 'PASS' })).rejects.toThrow(/has no privateJwk/);
  await expect(mintArtifact({ keys, issuer: 'https://nobody.example', operationId, evaluation: 'PASS' })).rejects.toThrow(
    /not in the key set/,
  );
});

it('ships two test issuers whose public and private keys belong together', async () => {
  expect(Object.keys(testKeySet.issuers).sort()).toEqual([issuer, secondIssuer]);
  for (const [name, { publicJwk, privateJwk }] of Object.entries(testKeySet.issuers)) {
    expect(publicJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: privateJwk?.x });
    expect(publicJwk).not.toHaveProperty('d');
    const result = await verify({ artifact: await mint({ as: name }), expectedIssuer: name });
    expect(result.integrity).toBe('VALID');
  }
});

// ── rule (a): cannot be decoded → UNRESOLVED, INDETERMINATE ───────────────────────────────

it('answers UNRESOLVED when the artifact is not three dot-separated segments', async () => {
  const one = await verify({ artifact: 'not-a-jws' });
  expect(one).toMatchObject({ integrity: 'UNRESOLVED', evaluation: 'INDETERMINATE' });
  expect(one.reasons[0]).toBe('artifact is not a compact JWS: expected 3 dot-separated segments, found 1');
  expect(one.reasons.join('\n')).toContain('docs/artifact-profile.md');
  const four = await verify({ artifact: `${await mint()}.extra` });
  expect(four.reasons[0]).toContain('found 4');
  expect((await verify({ artifact: '' })).reasons[0]).toContain('found 1');
});

it('answers UNRESOLVED for a segment that is not base64url, naming the character and where it is', async () => {
  const [header, payload, signature] = (await mint()).split('.');
  const padded = await verify({ artifact: `${header}.${payload}=.${signature}` });
  expect(padded).toMatchObject({ integrity: 'UNRESOLVED', evaluation: 'INDETERMINATE' });
  expect(padded.reasons[0]).toContain(
    `the payload (segment 2) is not base64url: character '=' at index ${header!.length + 1 + payload!.length}`,
  );
  expect(padded.reasons[0]).toContain('padding');
  const wrapped = await verify({ artifact: `${header}.${payload}.${signature}\n` });
  expect(wrapped.reasons[0]).toContain("character '\\u000a'");
  expect(wrapped.reasons[0]).toContain('signature (segment 3)');
});

it('answers UNRESOLVED when the header or payload is not a JSON object', async () => {
  const notJson = await verify({ artifact: `${base64url.encode('{nope')}.${encodeJson(goodClaims)}.AAAA` });
  expect(notJson).toMatchObject({ integrity: 'UNRESOLVED', evaluation: 'INDETERMINATE' });
  expect(notJson.reasons[0]).toMatch(/^the protected header \(segment 1\) is not JSON/);
  const array = await verify({ artifact: `${encodeJson({ alg: 'EdDSA', typ: 'eh-artifact+jws' })}.${encodeJson([goodClaims])}.AAAA` });
  expect(array.reasons[0]).toBe('the payload (segment 2) must be a JSON object, found an array of 1 item');
  const empty = await verify({ artifact: `${encodeJson({ alg: 'EdDSA', typ: 'eh-artifact+jws' })}..AAAA` });
  expect(empty.reasons[0]).toContain('the payload (segment 2) is empty');
  const notUtf8 = await verify({
    artifact: `${encodeJson({ alg: 'EdDSA', typ: 'eh-artifact+jws' })}.${base64url.encode(new Uint8Array([0xff, 0xfe]))}.AAAA`,
  });
  expect(notUtf8.reasons[0]).toContain('does not decode to UTF-8 text');
});

it('answers UNRESOLVED when alg is not EdDSA, and lists every header problem at once', async () => {
  const [, payload, signature] = (await mint()).split('.');
  const hs256 = await verify({ artifact: `${encodeJson({ alg: 'HS256', typ: 'eh-artifact+jws' })}.${payload}.${signature}` });
  expect(hs256).toMatchObject({ integrity: 'UNRESOLVED', evaluation: 'INDETERMINATE' });
  expect(hs256.reasons[0]).toBe(
    "the protected header's alg must be 'EdDSA' (eh-jws-ed25519/0.1 signs with Ed25519), found the string 'HS256'",
  );
  const many = await verify({ artifact: `${encodeJson({ alg: 'none', kid: 7, crit: ['b64'], b64: false })}.${payload}.${signature}` });
  expect(many.reasons.slice(0, 4)).toEqual([
    "the protected header's alg must be 'EdDSA' (eh-jws-ed25519/0.1 signs with Ed25519), found the string 'none'",
    "the protected header's typ must be 'eh-artifact+jws', found none",
    "the protected header's kid must be a string when present, found the number 7",
    "the protected header has members eh-jws-ed25519/0.1 does not allow: 'crit', 'b64' (allowed: alg, typ, kid)",
  ]);
});

it('accepts typ case-insensitively and with an application/ prefix, and a string kid', async () => {
  const artifact = await signRaw({ payload: goodClaims, header: { typ: 'application/EH-Artifact+JWS', kid: 'key-1' } });
  expect(await verify({ artifact })).toMatchObject({ integrity: 'VALID', evaluation: 'PASS' });
});

// ── rule (b): issuer missing or unknown → UNRESOLVED, INDETERMINATE ───────────────────────

it('answers UNRESOLVED when the claims have no iss', async () => {
  const { iss: _, ...withoutIss } = goodClaims;
  const result = await verify({ artifact: await signRaw({ payload: withoutIss }) });
  expect(result).toMatchObject({ integrity: 'UNRESOLVED', evaluation: 'INDETERMINATE' });
  expect(result.reasons[0]).toContain('no iss (issuer) string, found none');
  const numeric = await verify({ artifact: await signRaw({ payload: { ...goodClaims, iss: 42 } }) });
  expect(numeric.reasons[0]).toContain('found the number 42');
});

it('answers UNRESOLVED for an issuer outside the key set, naming the issuers it knows', async () => {
  const result = await verify({ artifact: await signRaw({ payload: { ...goodClaims, iss: 'https://x' } }) });
  expect(result).toMatchObject({ integrity: 'UNRESOLVED', evaluation: 'INDETERMINATE' });
  expect(result.reasons[0]).toContain(`issuer 'https://x' is not in the mock's key set (known: '${issuer}', '${secondIssuer}')`);
  expect(result.reasons[0]).toContain('issuerKeys');
});

it('does not take an inherited property name such as constructor for an issuer', async () => {
  for (const iss of ['constructor', '__proto__', 'toString']) {
    const result = await verify({ artifact: await signRaw({ payload: { ...goodClaims, iss } }) });
    expect({ iss, integrity: result.integrity }).toEqual({ iss, integrity: 'UNRESOLVED' });
  }
});

it('answers UNRESOLVED, without throwing, when the key set holds an unusable public key', async () => {
  const keys: IssuerKeySet = { issuers: { [issuer]: { publicJwk: { kty: 'OKP', crv: 'Ed25519', x: 'too-short' } } } };
  const result = await verify({ artifact: await mint(), keys });
  expect(result).toMatchObject({ integrity: 'UNRESOLVED', evaluation: 'INDETERMINATE' });
  expect(result.reasons[0]).toContain(`the mock's public key for issuer '${issuer}' cannot be used`);
});

// ── rule (c): signature does not verify → INVALID, FAIL ──────────────────────────────────

it('answers INVALID when the signature does not verify with the issuer key', async () => {
  const tampered = await mintArtifact({ keys: testKeySet, issuer, operationId, evaluation: 'PASS', tamper: 'signature' });
  const result = await verify({ artifact: tampered });
  expect(result).toEqual({
    integrity: 'INVALID',
    evaluation: 'FAIL',
    reasons: [
      `signature does not verify with the key of issuer '${issuer}': the artifact was changed after it was signed, or was signed with another key`,
    ],
  });
});

it('answers INVALID when the claims were changed after signing', async () => {
  const [header, , signature] = (await mint({ evaluation: 'FAIL' })).split('.');
  const result = await verify({ artifact: `${header}.${encodeJson({ ...goodClaims, evaluation: 'PASS' })}.${signature}` });
  expect(result).toMatchObject({ integrity: 'INVALID', evaluation: 'FAIL' });
});

it('answers INVALID when one issuer signs claims naming another', async () => {
  const result = await verify({ artifact: await signRaw({ payload: goodClaims, signer: secondIssuer }) });
  expect(result).toMatchObject({ integrity: 'INVALID', evaluation: 'FAIL' });
  expect(result.reasons[0]).toContain(`signature does not verify with the key of issuer '${issuer}'`);
});

it('answers INVALID for an empty or short signature segment', async () => {
  const [header, payload] = (await mint()).split('.');
  for (const signature of ['', 'AAAA']) {
    expect(await verify({ artifact: `${header}.${payload}.${signature}` })).toMatchObject({ integrity: 'INVALID', evaluation: 'FAIL' });
  }
});

// ── rule (d): malformed claims → INVALID, FAIL ───────────────────────────────────────────

it.each([
  { claim: 'operationId', change: { operationId: '' }, reason: 'claim operationId must be a non-empty string, found an empty string' },
  { claim: 'operationId', change: { operationId: 12 }, reason: 'claim operationId must be a non-empty string, found the number 12' },
  {
    claim: 'evaluation',
    change: { evaluation: 'MAYBE' },
    reason: "claim evaluation must be one of 'PASS', 'FAIL', 'INDETERMINATE', found the string 'MAYBE'",
  },
  {
    claim: 'reasons',
    change: { reasons: 'fine' },
    reason: "claim reasons must be an array of strings when present, found the string 'fine'",
  },
  { claim: 'reasons', change: { reasons: ['a', null] }, reason: 'claim reasons must be an array of strings, but reasons[1] is null' },
  {
    claim: 'iat',
    change: { iat: '2026-11-22' },
    reason: "claim iat must be a number (seconds since the Unix epoch), found the string '2026-11-22'",
  },
  { claim: 'iat', change: { iat: undefined }, reason: 'claim iat must be a number (seconds since the Unix epoch), found none' },
])('answers INVALID when the $claim claim is malformed ($reason)', async ({ change, reason }) => {
  const result = await verify({ artifact: await signRaw({ payload: { ...goodClaims, ...change } }) });
  expect(result).toMatchObject({ integrity: 'INVALID', evaluation: 'FAIL' });
  expect(result.reasons[0]).toBe(reason);
  expect(result.reasons.at(-1)).toContain(`the signature of issuer '${issuer}' verifies, but the claims do not follow eh-jws-ed25519/0.1`);
});

it('lists every malformed claim at once', async () => {
  const result = await verify({ artifact: await signRaw({ payload: { iss: issuer, evaluation: 'ok', reasons: {} } }) });
  expect(result.integrity).toBe('INVALID');
  expect(result.reasons.map((reason) => reason.split(' ')[1])).toEqual(['operationId', 'evaluation', 'reasons', 'iat', 'signature']);
});

it('answers INVALID for a minted artifact with tampered claims', async () => {
  const artifact = await mintArtifact({ keys: testKeySet, issuer, operationId, evaluation: 'PASS', tamper: 'claims' });
  const result = await verify({ artifact });
  expect(result).toMatchObject({ integrity: 'INVALID', evaluation: 'FAIL' });
  expect(result.reasons[0]).toContain("found the string 'MAYBE'");
});

// ── rule (e): valid → the claims' evaluation, or FAIL on a mismatch ──────────────────────

it('answers VALID with the evaluation and reasons of the claims when issuer and operation match, and says so when they give none', async () => {
  for (const evaluation of ['PASS', 'FAIL', 'INDETERMINATE'] as const) {
    const result = await verify({ artifact: await mint({ evaluation, reasons: [`because ${evaluation}`, 'second reason'] }) });
    expect(result).toEqual({ integrity: 'VALID', evaluation, reasons: [`because ${evaluation}`, 'second reason'] });
  }
  expect(await verify({ artifact: await mint() })).toEqual({
    integrity: 'VALID',
    evaluation: 'PASS',
    reasons: [
      `the signature of issuer '${issuer}' verifies and the artifact is for operation '${operationId}'; its claims give no reasons for the evaluation 'PASS'`,
    ],
  });
});

it('answers VALID but FAIL when the operation differs, naming the expected and found values', async () => {
  const result = await verify({ artifact: await mint({ operationId: 'op-other' }) });
  expect(result.integrity).toBe('VALID');
  expect(result.evaluation).toBe('FAIL');
  expect(result.reasons).toEqual([
    `operation mismatch: expectedOperationId is '${operationId}', the artifact's operationId claim is 'op-other'`,
    "the artifact's own evaluation ('PASS') does not apply: it is about another issuer or operation than the one expected",
  ]);
});

it('answers VALID but FAIL when another known issuer signed it, and gives one reason per mismatch', async () => {
  const result = await verify({ artifact: await mint({ as: secondIssuer, operationId: 'op-other' }) });
  expect(result).toMatchObject({ integrity: 'VALID', evaluation: 'FAIL' });
  expect(result.reasons.slice(0, 2)).toEqual([
    `issuer mismatch: expectedIssuer is '${issuer}', the artifact's iss claim is '${secondIssuer}'`,
    `operation mismatch: expectedOperationId is '${operationId}', the artifact's operationId claim is 'op-other'`,
  ]);
});

// ── always a valid result ────────────────────────────────────────────────────────────────

it('answers every generated garbage string with a schema-valid result', async () => {
  const valid = await mint({ reasons: ['x'] });
  const segment = fc.stringMatching(/^[A-Za-z0-9_-]{0,40}$/);
  const artifact = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.tuple(segment, segment, segment).map((parts) => parts.join('.')),
    fc
      .tuple(fc.json(), fc.json(), segment)
      .map(([header, payload, signature]) => `${base64url.encode(header)}.${base64url.encode(payload)}.${signature}`),
    fc
      .tuple(fc.nat({ max: valid.length - 1 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }))
      .map(([at, insert]) => valid.slice(0, at) + insert + valid.slice(at + 1)),
  );
  await fc.assert(
    fc.asyncProperty(artifact, async (value) => {
      const result = await verifyArtifact({
        request: { artifact: value, expectedIssuer: issuer, expectedOperationId: operationId },
        keys: testKeySet,
      });
      return VerificationResult.safeParse(result).success && result.reasons.length > 0;
    }),
    { seed, numRuns: 200 },
  );
});

it('answers a 1,048,576-character artifact of garbage, of dots, and of one huge segment', async () => {
  const length = limits.artifactLength.max;
  expect((await verify({ artifact: 'x'.repeat(length) })).reasons[0]).toContain('found 1');
  expect((await verify({ artifact: '.'.repeat(length) })).reasons[0]).toContain(`found ${length + 1}`);
  const header = encodeJson({ alg: 'EdDSA', typ: 'eh-artifact+jws' });
  const filler = 'A'.repeat(length - header.length - 2);
  const result = await verify({ artifact: `${header}.${filler}.` });
  expect(result.integrity).toBe('UNRESOLVED');
});

it('cuts echoed values so that a huge issuer, operation or header member keeps every reason within the limits', async () => {
  const huge = `https://${'😀'.repeat(200_000)}.example`;
  const unknown = await verify({ artifact: await signRaw({ payload: { ...goodClaims, iss: huge } }) });
  expect(unknown.integrity).toBe('UNRESOLVED');
  expect(codePointLength(unknown.reasons[0]!)).toBeLessThan(400);
  expect(unknown.reasons[0]).toContain('…');
  const mismatch = await verify({ artifact: await mint({ operationId: 'o'.repeat(500_000) }) });
  expect(mismatch).toMatchObject({ integrity: 'VALID', evaluation: 'FAIL' });
  expect(codePointLength(mismatch.reasons[0]!)).toBeLessThan(400);
  const [, payload, signature] = (await mint()).split('.');
  const members = Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`member-${index}`, index]));
  const header = await verify({ artifact: `${encodeJson({ alg: 'EdDSA', typ: 'eh-artifact+jws', ...members })}.${payload}.${signature}` });
  expect(header.reasons[0]).toContain('and 4992 more');
});

it('keeps at most 64 reasons of at most 2048 code points when the claims carry more', async () => {
  const long = '😀'.repeat(3000);
  const result = await verify({ artifact: await mint({ reasons: Array.from({ length: 100 }, (_, index) => `${index}:${long}`) }) });
  expect(result.integrity).toBe('VALID');
  expect(result.reasons).toHaveLength(limits.reasonsItems.max);
  expect(codePointLength(result.reasons[0]!)).toBe(limits.reasonLength.max);
  expect(result.reasons[0]!.endsWith('😀…')).toBe(true);
  expect(result.reasons.at(-1)).toBe('37 more reasons were left out: a result carries at most 64');
});

it('answers a request whose artifact is not a string, as untyped JavaScript callers may send', async () => {
  const request = { artifact: 42, expectedIssuer: issuer, expectedOperationId: operationId } as unknown as Parameters<
    typeof verifyArtifact
  >[0]['request'];
  const result = await verifyArtifact({ request, keys: testKeySet });
  expect(result).toEqual({
    integrity: 'UNRESOLVED',
    evaluation: 'INDETERMINATE',
    reasons: ['artifact must be a string, found the number 42'],
  });
});
