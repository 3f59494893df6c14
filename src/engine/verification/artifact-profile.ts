/**
 * @module engine/verification/artifact-profile
 * verifyReport's answer under the mock's test artifact profile `eh-jws-ed25519/0.1`
 * (docs/assumptions.md A-12, docs/artifact-profile.md): an artifact is a compact JWS signed
 * with Ed25519 whose claims name the issuer, the operation and its evaluation. The module also
 * mints artifacts, honest and deliberately broken, for tests and for client developers.
 *
 * Isomorphic: Web APIs and jose only, so it runs in a browser service worker as well as Node.
 * Verification never throws: every input string, however broken or long, gets a result that is
 * valid against the contract's VerificationResult schema, with reasons that say what to fix.
 */
import type * as Jose from 'jose';
import {
  codePointLength,
  type Evaluation,
  evaluations,
  type Integrity,
  limits,
  type VerificationRequest,
  type VerificationResult,
} from '../../contract/index.js';

let loadedJose: typeof Jose | undefined;

/**
 * jose, loaded on the first verification or minting rather than when the engine is imported:
 * it is dozens of modules, and `evidence-harness mock` answered its first /health about 20 ms
 * later for loading it up front, though most runs never verify an artifact.
 */
async function loadJose(): Promise<typeof Jose> {
  loadedJose ??= await import('jose');
  return loadedJose;
}

/** jose, once loadJose() has run (every entry point below awaits it first). */
function jose(): typeof Jose {
  if (!loadedJose) throw new Error('artifact-profile: jose used before loadJose()');
  return loadedJose;
}

/** The name of this test profile; not a production signing profile (A-12). */
export const profileId = 'eh-jws-ed25519/0.1';

/** The issuer minted by `tamper: 'unknown-issuer'`; no shipped key set contains it. */
export const unknownIssuer = 'https://unknown-issuer.example';

/**
 * Issuers' keys, keyed by issuer identifier (the `iss` claim, e.g. 'https://issuer.example').
 * Verification needs only `publicJwk`; minting needs `privateJwk`.
 */
export interface IssuerKeySet {
  readonly issuers: Readonly<Record<string, { readonly publicJwk: JsonWebKey; readonly privateJwk?: JsonWebKey }>>;
}

/** The JWS payload of an artifact under this profile. */
export interface ArtifactClaims {
  iss: string;
  operationId: string;
  evaluation: 'PASS' | 'FAIL' | 'INDETERMINATE';
  reasons?: string[];
  /** Issued at, in seconds since the Unix epoch. Carried, not checked: the mock has no freshness rule. */
  iat: number;
}

export interface VerifyArtifactOptions {
  /** The verifyReport request body, already valid against the VerificationRequest schema. */
  readonly request: VerificationRequest;
  readonly keys: IssuerKeySet;
}

/** How `mintArtifact` breaks the artifact on purpose; 'none' mints an honest one. */
export type ArtifactTamper = 'none' | 'signature' | 'claims' | 'undecodable' | 'unknown-issuer';

export interface MintArtifactOptions {
  /** The issuer to sign as; must be in `keys` with a `privateJwk`. */
  readonly issuer: string;
  readonly operationId: string;
  readonly evaluation: 'PASS' | 'FAIL' | 'INDETERMINATE';
  readonly reasons?: string[];
  readonly keys: IssuerKeySet;
  /** The `iat` claim in seconds since the epoch. Default: now. Fix it for reproducible artifacts. */
  readonly issuedAt?: number;
  /** Default 'none'. */
  readonly tamper?: ArtifactTamper;
}

const header = { alg: 'EdDSA', typ: 'eh-artifact+jws' } as const;
const allowedHeaderMembers = ['alg', 'typ', 'kid'];
const docPointer = 'see docs/artifact-profile.md';

/** How much of a value taken from the artifact one reason may quote, in code points. */
const echoLength = 128;
/** How many names a list inside one reason shows before saying "and N more". */
const listLength = 8;

// ── reasons that always fit the contract ─────────────────────────────────────────────────

/**
 * A value from the artifact or the request, made safe to quote: at most `echoLength` code
 * points, control characters escaped so a reason stays one readable line in a log.
 */
function excerpt(value: string): string {
  let out = '';
  let count = 0;
  // for..of walks code points, so a cut never splits a surrogate pair.
  for (const char of value) {
    if (count === echoLength) return `${out}…`;
    const code = char.codePointAt(0)!;
    out += code < 0x20 || code === 0x7f ? `\\u${code.toString(16).padStart(4, '0')}` : char;
    count += 1;
  }
  return out;
}

function quote(value: string): string {
  return `'${excerpt(value)}'`;
}

/** Describes any JSON value for a "found ..." clause without echoing more than a short excerpt. */
function describe(value: unknown): string {
  if (value === undefined) return 'none';
  if (value === null) return 'null';
  if (typeof value === 'string') return value === '' ? 'an empty string' : `the string ${quote(value)}`;
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (typeof value === 'object') return 'an object';
  return `the ${typeof value} ${excerpt(String(value))}`;
}

function listOf(names: readonly string[]): string {
  const shown = names.slice(0, listLength).map(quote).join(', ');
  return names.length > listLength ? `${shown} and ${names.length - listLength} more` : shown;
}

/** One reason, cut to the contract's per-reason limit (code points) with a trailing '…'. */
function bounded(text: string): string {
  const max = limits.reasonLength.max;
  // .length is an upper bound of the code-point count, so most reasons skip the scan.
  if (text.length <= max || codePointLength(text) <= max) return text;
  let out = '';
  let count = 0;
  for (const char of text) {
    if (count === max - 1) break;
    out += char;
    count += 1;
  }
  return `${out}…`;
}

/** The only way a result is built, so every result fits the VerificationResult schema. */
function result(integrity: Integrity, evaluation: Evaluation, reasons: readonly string[]): VerificationResult {
  const max = limits.reasonsItems.max;
  const kept =
    reasons.length <= max
      ? reasons
      : [...reasons.slice(0, max - 1), `${reasons.length - (max - 1)} more reasons were left out: a result carries at most ${max}`];
  return { integrity, evaluation, reasons: kept.map(bounded) };
}

function unresolved(reasons: readonly string[]): VerificationResult {
  return result('UNRESOLVED', 'INDETERMINATE', reasons);
}

function invalid(reasons: readonly string[]): VerificationResult {
  return result('INVALID', 'FAIL', reasons);
}

// ── decoding (rule a) ────────────────────────────────────────────────────────────────────

type Decoded<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function countSegments(artifact: string): number {
  let count = 1;
  for (let index = artifact.indexOf('.'); index !== -1; index = artifact.indexOf('.', index + 1)) count += 1;
  return count;
}

/** Strict base64url (RFC 7515 section 2): no padding, no whitespace; jose alone would allow less helpful errors. */
function decodeSegment(options: { segment: string; label: string; offset: number }): Decoded<Uint8Array> {
  const { segment, label, offset } = options;
  const bad = /[^A-Za-z0-9_-]/.exec(segment);
  if (bad) {
    const char = bad[0];
    const code = char.charCodeAt(0);
    const shown = code < 0x20 || code === 0x7f ? `\\u${code.toString(16).padStart(4, '0')}` : char;
    const hint = char === '=' ? " (base64url in a JWS has no '=' padding)" : /\s/.test(char) ? ' (remove whitespace and line breaks)' : '';
    return {
      ok: false,
      problem: `the ${label} is not base64url: character '${shown}' at index ${offset + bad.index} of the artifact is not one of A-Z a-z 0-9 - _${hint}`,
    };
  }
  if (segment.length % 4 === 1) {
    return { ok: false, problem: `the ${label} is not base64url: a length of ${segment.length} characters cannot encode whole bytes` };
  }
  try {
    return { ok: true, value: jose().base64url.decode(segment) };
  } catch {
    return { ok: false, problem: `the ${label} is not base64url` };
  }
}

function parseJsonObject(options: { bytes: Uint8Array; label: string }): Decoded<Record<string, unknown>> {
  const { bytes, label } = options;
  if (bytes.length === 0) return { ok: false, problem: `the ${label} is empty: expected base64url of a JSON object` };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, problem: `the ${label} does not decode to UTF-8 text: expected base64url of a JSON object` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? `: ${excerpt(error.message)}` : '';
    return { ok: false, problem: `the ${label} is not JSON${detail}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: `the ${label} must be a JSON object, found ${describe(value)}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function headerProblems(protectedHeader: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { alg, typ, kid } = protectedHeader;
  if (alg !== header.alg) {
    problems.push(`the protected header's alg must be '${header.alg}' (${profileId} signs with Ed25519), found ${describe(alg)}`);
  }
  // RFC 7515 section 4.1.9: typ compares case-insensitively and may carry 'application/'.
  const typName = typeof typ === 'string' ? typ.toLowerCase().replace(/^application\//, '') : undefined;
  if (typName !== header.typ) problems.push(`the protected header's typ must be '${header.typ}', found ${describe(typ)}`);
  if (kid !== undefined && typeof kid !== 'string')
    problems.push(`the protected header's kid must be a string when present, found ${describe(kid)}`);
  const extra = Object.keys(protectedHeader).filter((name) => !allowedHeaderMembers.includes(name));
  if (extra.length > 0) {
    problems.push(`the protected header has members ${profileId} does not allow: ${listOf(extra)} (allowed: alg, typ, kid)`);
  }
  return problems;
}

type DecodedArtifact =
  | { readonly ok: true; readonly claims: Record<string, unknown> }
  | { readonly ok: false; readonly problems: string[] };

/** Rule (a): the claims of a compact JWS of this profile, or every reason it is not one. */
function decodeArtifact(artifact: string): DecodedArtifact {
  const segments = countSegments(artifact);
  if (segments !== 3) {
    return { ok: false, problems: [`artifact is not a compact JWS: expected 3 dot-separated segments, found ${segments}`] };
  }
  const [encodedHeader = '', encodedPayload = '', encodedSignature = ''] = artifact.split('.');
  const problems: string[] = [];
  const headerBytes = decodeSegment({ segment: encodedHeader, label: 'protected header (segment 1)', offset: 0 });
  const payloadBytes = decodeSegment({ segment: encodedPayload, label: 'payload (segment 2)', offset: encodedHeader.length + 1 });
  const signatureBytes = decodeSegment({
    segment: encodedSignature,
    label: 'signature (segment 3)',
    offset: encodedHeader.length + encodedPayload.length + 2,
  });
  // Every segment is checked, so one answer lists everything that is wrong.
  let protectedHeader: Record<string, unknown> | undefined;
  if (headerBytes.ok) {
    const parsed = parseJsonObject({ bytes: headerBytes.value, label: 'protected header (segment 1)' });
    if (parsed.ok) protectedHeader = parsed.value;
    else problems.push(parsed.problem);
  } else {
    problems.push(headerBytes.problem);
  }
  let claims: Record<string, unknown> | undefined;
  if (payloadBytes.ok) {
    const parsed = parseJsonObject({ bytes: payloadBytes.value, label: 'payload (segment 2)' });
    if (parsed.ok) claims = parsed.value;
    else problems.push(parsed.problem);
  } else {
    problems.push(payloadBytes.problem);
  }
  if (!signatureBytes.ok) problems.push(signatureBytes.problem);
  if (protectedHeader) problems.push(...headerProblems(protectedHeader));
  if (problems.length > 0 || !claims) return { ok: false, problems };
  return { ok: true, claims };
}

// ── keys (rules b and c) ─────────────────────────────────────────────────────────────────

type VerificationKey = Awaited<ReturnType<typeof Jose.importJWK>>;

// Imported keys are cached per JWK object: the key set rarely changes, and importing is async.
const publicKeys = new WeakMap<JsonWebKey, Promise<VerificationKey>>();

/** Only the public members, so a JWK that also carries `d` still imports as a verification key. */
function publicKeyOf(jwk: JsonWebKey): Promise<VerificationKey> {
  let key = publicKeys.get(jwk);
  if (!key) {
    key = jose().importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x } as Jose.JWK, header.alg);
    publicKeys.set(jwk, key);
  }
  return key;
}

function issuerEntry(keys: IssuerKeySet, issuer: string) {
  // Own properties only: an `iss` of 'constructor' must not find Object.prototype's.
  return Object.hasOwn(keys.issuers, issuer) ? keys.issuers[issuer] : undefined;
}

// ── claims (rule d) ──────────────────────────────────────────────────────────────────────

function isEvaluation(value: unknown): value is Evaluation {
  return (evaluations as readonly unknown[]).includes(value);
}

function claimProblems(claims: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { operationId, evaluation, reasons, iat } = claims;
  if (typeof operationId !== 'string' || operationId === '') {
    problems.push(`claim operationId must be a non-empty string, found ${describe(operationId)}`);
  }
  if (!isEvaluation(evaluation)) {
    problems.push(`claim evaluation must be one of ${evaluations.map((value) => `'${value}'`).join(', ')}, found ${describe(evaluation)}`);
  }
  if (reasons !== undefined) {
    if (!Array.isArray(reasons)) {
      problems.push(`claim reasons must be an array of strings when present, found ${describe(reasons)}`);
    } else {
      const index = reasons.findIndex((item) => typeof item !== 'string');
      if (index !== -1) problems.push(`claim reasons must be an array of strings, but reasons[${index}] is ${describe(reasons[index])}`);
    }
  }
  // JSON can hold 1e999, which parses to Infinity: not a time.
  if (typeof iat !== 'number' || !Number.isFinite(iat)) {
    problems.push(`claim iat must be a number (seconds since the Unix epoch), found ${describe(iat)}`);
  }
  return problems;
}

// ── verification ─────────────────────────────────────────────────────────────────────────

/**
 * verifyReport's answer for one request under `eh-jws-ed25519/0.1`. Never throws and never
 * rejects: the result always satisfies the VerificationResult schema (at most 64 reasons, each
 * at most 2048 code points), whatever the artifact holds.
 *
 * | Input | integrity | evaluation |
 * | --- | --- | --- |
 * | not a decodable compact JWS of this profile | UNRESOLVED | INDETERMINATE |
 * | `iss` missing or not in `keys` | UNRESOLVED | INDETERMINATE |
 * | signature does not verify with the issuer's key | INVALID | FAIL |
 * | claims malformed | INVALID | FAIL |
 * | issuer or operation differs from the request | VALID | FAIL |
 * | otherwise | VALID | the claims' evaluation (reasons: the claims' reasons, or one saying none were given) |
 */
export async function verifyArtifact(options: VerifyArtifactOptions): Promise<VerificationResult> {
  try {
    return await verify(options);
  } catch (error) {
    // A safety net, not a path the tests expect: a verifier must answer, never fail the request.
    const name = error instanceof Error ? error.name : typeof error;
    return unresolved([`the mock could not verify the artifact (${excerpt(name)}); this is a bug in evidence-harness, ${docPointer}`]);
  }
}

async function verify(options: VerifyArtifactOptions): Promise<VerificationResult> {
  await loadJose();
  const { request, keys } = options;
  const artifact: unknown = request.artifact;
  if (typeof artifact !== 'string') return unresolved([`artifact must be a string, found ${describe(artifact)}`]);

  const decoded = decodeArtifact(artifact);
  if (!decoded.ok) {
    return unresolved([
      ...decoded.problems,
      `the artifact cannot be read under the mock's test profile ${profileId}, so its integrity is UNRESOLVED; ${docPointer}`,
    ]);
  }
  const { claims } = decoded;

  const iss = claims.iss;
  if (typeof iss !== 'string') {
    return unresolved([
      `the artifact's claims have no iss (issuer) string, found ${describe(iss)}, so no key can be chosen to check the signature`,
    ]);
  }
  const entry = issuerEntry(keys, iss);
  if (!entry) {
    const known = Object.keys(keys.issuers);
    return unresolved([
      `issuer ${quote(iss)} is not in the mock's key set (known: ${known.length > 0 ? listOf(known) : 'none'}); ` +
        `sign with one of those issuers' keys, or give the mock this issuer's public key (the issuerKeys option)`,
    ]);
  }

  let key: VerificationKey;
  try {
    key = await publicKeyOf(entry.publicJwk);
  } catch (error) {
    const detail = error instanceof Error ? excerpt(error.message) : 'unknown error';
    return unresolved([
      `the mock's public key for issuer ${quote(iss)} cannot be used (${detail}); its publicJwk must be an Ed25519 key (kty 'OKP', crv 'Ed25519', x)`,
    ]);
  }
  try {
    await jose().compactVerify(artifact, key, { algorithms: [header.alg] });
  } catch (error) {
    if (error instanceof jose().errors.JWSSignatureVerificationFailed) {
      return invalid([
        `signature does not verify with the key of issuer ${quote(iss)}: the artifact was changed after it was signed, or was signed with another key`,
      ]);
    }
    // decodeArtifact has already refused everything jose refuses, so this is not expected.
    const code = error instanceof jose().errors.JOSEError ? error.code : 'unexpected error';
    return unresolved([`the artifact could not be checked (${excerpt(code)}); ${docPointer}`]);
  }

  const problems = claimProblems(claims);
  if (problems.length > 0) {
    return invalid([
      ...problems,
      `the signature of issuer ${quote(iss)} verifies, but the claims do not follow ${profileId}; ${docPointer}`,
    ]);
  }
  const valid = claims as unknown as ArtifactClaims;

  const mismatches: string[] = [];
  if (iss !== request.expectedIssuer) {
    mismatches.push(
      `issuer mismatch: expectedIssuer is ${quote(String(request.expectedIssuer))}, the artifact's iss claim is ${quote(iss)}`,
    );
  }
  if (valid.operationId !== request.expectedOperationId) {
    mismatches.push(
      `operation mismatch: expectedOperationId is ${quote(String(request.expectedOperationId))}, ` +
        `the artifact's operationId claim is ${quote(valid.operationId)}`,
    );
  }
  if (mismatches.length > 0) {
    return result('VALID', 'FAIL', [
      ...mismatches,
      `the artifact's own evaluation ('${valid.evaluation}') does not apply: it is about another issuer or operation than the one expected`,
    ]);
  }
  if (valid.reasons === undefined || valid.reasons.length === 0) {
    // Every result carries a reason; when the artifact gives none, say what was checked.
    return result('VALID', valid.evaluation, [
      `the signature of issuer ${quote(iss)} verifies and the artifact is for operation ${quote(valid.operationId)}; ` +
        `its claims give no reasons for the evaluation '${valid.evaluation}'`,
    ]);
  }
  return result('VALID', valid.evaluation, valid.reasons);
}

// ── minting ──────────────────────────────────────────────────────────────────────────────

/**
 * Signs an artifact under `eh-jws-ed25519/0.1` with the issuer's `privateJwk` (jose
 * CompactSign). `tamper` breaks it on purpose: 'signature' flips a bit of the signature,
 * 'claims' signs an evaluation of 'MAYBE', 'undecodable' returns a string that is not a JWS,
 * 'unknown-issuer' signs with the issuer's key but claims `iss` 'https://unknown-issuer.example'.
 * Throws an Error when the issuer is not in `keys` or has no `privateJwk`.
 */
export async function mintArtifact(options: MintArtifactOptions): Promise<string> {
  const { issuer, operationId, evaluation, reasons, keys, tamper = 'none' } = options;
  const entry = issuerEntry(keys, issuer);
  if (!entry) {
    throw new Error(`mintArtifact: issuer '${issuer}' is not in the key set (known: ${Object.keys(keys.issuers).join(', ') || 'none'})`);
  }
  if (!entry.privateJwk) {
    throw new Error(
      `mintArtifact: issuer '${issuer}' has no privateJwk in the key set, so the mock cannot sign as it; add its private JWK`,
    );
  }
  await loadJose();
  const signingKey = await jose().importJWK(entry.privateJwk as Jose.JWK, header.alg);
  const claims = {
    iss: tamper === 'unknown-issuer' ? unknownIssuer : issuer,
    operationId,
    evaluation: tamper === 'claims' ? 'MAYBE' : evaluation,
    ...(reasons === undefined ? {} : { reasons }),
    iat: options.issuedAt ?? Math.floor(Date.now() / 1000),
  };
  const jws = await new (jose().CompactSign)(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ ...header })
    .sign(signingKey);
  switch (tamper) {
    case 'signature':
      return flipSignatureBit(jws);
    case 'undecodable':
      // The segments run together, as when a copy loses its dots: one segment, not three.
      return jws.replaceAll('.', '');
    default:
      return jws;
  }
}

function flipSignatureBit(jws: string): string {
  const cut = jws.lastIndexOf('.');
  const signature = jose().base64url.decode(jws.slice(cut + 1));
  // The first byte, not the last character: the last base64url character also holds unused bits.
  signature[0] = (signature[0] ?? 0) ^ 0x01;
  return `${jws.slice(0, cut + 1)}${jose().base64url.encode(signature)}`;
}

// ── outcome examples ─────────────────────────────────────────────────────────────────────

/** The integrity and evaluation verifyReport gives an artifact. */
export interface OutcomeExpectation {
  readonly integrity: Integrity;
  readonly evaluation: Evaluation;
}

/** How one example artifact is minted, and what verifying it must give. */
export interface OutcomeExample {
  readonly description: string;
  readonly evaluation: Evaluation;
  readonly reasons?: string[];
  readonly tamper: ArtifactTamper;
  /** Mint for an operation other than the expected one. */
  readonly otherOperation?: boolean;
  readonly expected: OutcomeExpectation;
}

/**
 * One example for every row of the decision table, as data: tests and a CLI mint from it with
 * `mintOutcomeArtifacts`, and verify with the same issuer and operation as expected values.
 */
export const outcomeExamples = {
  validPass: {
    description: 'signed by the expected issuer for the expected operation, evaluation PASS',
    evaluation: 'PASS',
    reasons: ['test artifact: every check passed'],
    tamper: 'none',
    expected: { integrity: 'VALID', evaluation: 'PASS' },
  },
  validFail: {
    description: 'signed by the expected issuer for the expected operation, evaluation FAIL',
    evaluation: 'FAIL',
    reasons: ['test artifact: the policy check failed'],
    tamper: 'none',
    expected: { integrity: 'VALID', evaluation: 'FAIL' },
  },
  validIndeterminate: {
    description: 'signed by the expected issuer for the expected operation, evaluation INDETERMINATE',
    evaluation: 'INDETERMINATE',
    reasons: ['test artifact: the evidence was not enough to decide'],
    tamper: 'none',
    expected: { integrity: 'VALID', evaluation: 'INDETERMINATE' },
  },
  wrongOperation: {
    description: 'a valid PASS artifact for another operation',
    evaluation: 'PASS',
    tamper: 'none',
    otherOperation: true,
    expected: { integrity: 'VALID', evaluation: 'FAIL' },
  },
  invalidSignature: {
    description: 'a PASS artifact whose signature has one bit flipped',
    evaluation: 'PASS',
    tamper: 'signature',
    expected: { integrity: 'INVALID', evaluation: 'FAIL' },
  },
  invalidClaims: {
    description: "correctly signed, but its evaluation claim is 'MAYBE'",
    evaluation: 'PASS',
    tamper: 'claims',
    expected: { integrity: 'INVALID', evaluation: 'FAIL' },
  },
  undecodable: {
    description: 'a JWS that lost its dots, so it is not a compact JWS',
    evaluation: 'PASS',
    tamper: 'undecodable',
    expected: { integrity: 'UNRESOLVED', evaluation: 'INDETERMINATE' },
  },
  unknownIssuer: {
    description: `correctly signed, but its iss is ${unknownIssuer}, which no key set holds`,
    evaluation: 'PASS',
    tamper: 'unknown-issuer',
    expected: { integrity: 'UNRESOLVED', evaluation: 'INDETERMINATE' },
  },
} as const satisfies Record<string, OutcomeExample>;

export type OutcomeCaseName = keyof typeof outcomeExamples;

/** A minted example artifact and what verifying it must give. */
export interface OutcomeArtifact {
  readonly artifact: string;
  readonly expected: OutcomeExpectation;
}

export interface MintOutcomeArtifactsOptions {
  readonly keys: IssuerKeySet;
  /** The issuer to sign as; also the expectedIssuer the expectations assume. */
  readonly issuer: string;
  /** The expectedOperationId the expectations assume. */
  readonly operationId: string;
  /** The `iat` of every artifact. Default: now. */
  readonly issuedAt?: number;
}

/**
 * Mints one artifact per entry of `outcomeExamples`. Verified with `expectedIssuer: issuer` and
 * `expectedOperationId: operationId`, each gives its `expected` integrity and evaluation.
 */
export async function mintOutcomeArtifacts(options: MintOutcomeArtifactsOptions): Promise<Record<OutcomeCaseName, OutcomeArtifact>> {
  const { keys, issuer, operationId, issuedAt } = options;
  const entries = await Promise.all(
    Object.entries(outcomeExamples).map(async ([name, example]: [string, OutcomeExample]) => {
      const artifact = await mintArtifact({
        keys,
        issuer,
        // A suffix always differs from the expected operationId, whatever it is.
        operationId: example.otherOperation ? `${operationId}-other` : operationId,
        evaluation: example.evaluation,
        ...(example.reasons === undefined ? {} : { reasons: [...example.reasons] }),
        ...(issuedAt === undefined ? {} : { issuedAt }),
        tamper: example.tamper,
      });
      return [name, { artifact, expected: example.expected }] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<OutcomeCaseName, OutcomeArtifact>;
}
