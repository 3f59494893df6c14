/**
 * The generators of issue 23's edge inputs, checked against the spec with the project's own
 * validator: the largest valid body (every limit reached, in bytes as large as the body limit
 * allows), odd but valid strings in every string field, and odd jobIds. Lengths count code
 * points (src/contract/text.ts).
 */
import { beforeAll, expect, it } from 'vitest';
import { costliestJson, largestValue, utf8Length } from '../../src/conformance/generators/largest-value.js';
import { fullValidValue } from '../../src/conformance/generators/mutations.js';
import { oddStringClasses, percentEncodedUtf8, withOddStrings } from '../../src/conformance/generators/odd-strings.js';
import { oddPathValues } from '../../src/conformance/generators/path-values.js';
import { writtenTarget } from '../../src/conformance/http/bounded-client.js';
import { toCurl } from '../../src/conformance/http/curl.js';
import { bodyLimitOf } from '../../src/conformance/probes/edge-probes.js';
import { bodyLimits, limits } from '../../src/contract/limits.js';
import { codePointLength } from '../../src/contract/text.js';
import type { ContractDocument, JsonSchema } from '../../src/openapi/document.js';
import type { ResponseValidator } from '../../src/openapi/response-validator.js';
import { bundledContract, bundledResponseValidator } from '../support/contract.js';

let contract: ContractDocument;
let validator: ResponseValidator;
beforeAll(async () => {
  contract = await bundledContract();
  validator = await bundledResponseValidator();
});

const bodySchema = (operationId: string): JsonSchema =>
  contract.operations.find((operation) => operation.operationId === operationId)!.requestBody!.content['application/json']!;
const accepts = (schema: JsonSchema, value: unknown) => validator.validateSchema(schema, value).length === 0;

it('builds the largest valid createEvaluation: every limit of the spec reached, free strings in 4-byte characters', () => {
  const body = largestValue(bodySchema('createEvaluation')) as any;
  expect(validator.validateSchema(bodySchema('createEvaluation'), body)).toEqual([]);
  expect(body.evidence).toHaveLength(limits.evidenceItems.max);
  expect(codePointLength(body.operationId)).toBe(limits.operationIdLength.max);
  expect(utf8Length(body.operationId)).toBe(4 * limits.operationIdLength.max);
  for (const item of body.evidence) {
    expect(codePointLength(item.id)).toBe(limits.evidenceIdLength.max);
    expect(utf8Length(item.id)).toBe(4 * limits.evidenceIdLength.max);
    expect(codePointLength(item.network)).toBe(limits.evidenceNetworkLength.max);
    // format uri is ASCII (src/contract/uri.ts): at its maximum in characters, one byte each.
    expect(item.uri).toHaveLength(limits.evidenceUriLength.max);
    expect(item.digest).toMatch(/^[0-9a-f]{64}$/);
    // The enum member with the longest spelling.
    expect(item.kind).toBe('reproduced_calculation');
  }
});

it('builds the largest valid verifyReport: artifact, expectedOperationId and expectedIssuer at their maxima', () => {
  const body = largestValue(bodySchema('verifyReport')) as any;
  expect(validator.validateSchema(bodySchema('verifyReport'), body)).toEqual([]);
  expect(codePointLength(body.artifact)).toBe(limits.artifactLength.max);
  expect(codePointLength(body.expectedOperationId)).toBe(limits.expectedOperationIdLength.max);
  expect(codePointLength(body.expectedIssuer)).toBe(limits.expectedIssuerLength.max);
  expect(utf8Length(JSON.stringify(body))).toBeGreaterThan(4 * limits.artifactLength.max);
});

it.each([
  ['createEvaluation', bodyLimits.createEvaluationBytes],
  ['verifyReport', bodyLimits.verifyReportBytes],
])('spells the largest %s with every character \\u-escaped, within its body limit (A-13)', (operationId, limit) => {
  expect(bodyLimitOf(operationId)).toBe(limit);
  const value = largestValue(bodySchema(operationId));
  const costliest = costliestJson(value, limit)!;
  expect(costliest.everyCharacterEscaped).toBe(true);
  expect(costliest.bytes).toBe(Buffer.byteLength(costliest.text));
  expect(costliest.bytes).toBeLessThanOrEqual(limit);
  expect(costliest.bytes).toBeGreaterThan(limit / 2);
  // Nothing is left unescaped inside a string: only escapes between quotes, and JSON's punctuation.
  expect(costliest.text.replace(/\\u[0-9a-f]{4}/g, '')).toMatch(/^[{}[\],:"]+$/);
  expect(JSON.parse(costliest.text)).toEqual(value);
});

it('escapes characters only up to the byte limit, and fills it to within one escape', () => {
  const value = { name: '\u{1F600}'.repeat(100), other: 'abc' };
  const plain = Buffer.byteLength(JSON.stringify(value));
  const limit = plain + 500;
  const costliest = costliestJson(value, limit)!;
  expect(costliest.everyCharacterEscaped).toBe(false);
  expect(costliest.bytes).toBeLessThanOrEqual(limit);
  expect(costliest.bytes).toBeGreaterThan(limit - 12);
  expect(JSON.parse(costliest.text)).toEqual(value);
  expect(costliestJson(value, plain - 1)).toBeUndefined();
});

it.each(['createEvaluation', 'verifyReport'].flatMap((operationId) => oddStringClasses.map((odd) => [operationId, odd.name] as const)))(
  'puts odd but valid strings in every string field of %s: %s',
  (operationId, name) => {
    const schema = bodySchema(operationId);
    const odd = oddStringClasses.find((candidate) => candidate.name === name)!;
    const base = fullValidValue(schema) as any;
    const { value, pointers } = withOddStrings({ schema, base, text: odd.text, accepts });
    expect(validator.validateSchema(schema, value)).toEqual([]);
    const body = value as any;
    if (operationId === 'createEvaluation') {
      expect(pointers).toEqual(['/operationId', '/evidence/0/id', '/evidence/0/uri', '/evidence/0/network']);
      expect(body.operationId).toBe(odd.text);
      expect(body.evidence[0].uri).toBe(`https://evidence.example/${percentEncodedUtf8(odd.text)}`);
      // A pattern or an enum keeps its valid value.
      expect(body.profile).toBe(base.profile);
      expect(body.instructionDigest).toBe(base.instructionDigest);
      expect(body.evidence[0].kind).toBe(base.evidence[0].kind);
    } else {
      expect(pointers).toEqual(['/artifact', '/expectedOperationId', '/expectedIssuer']);
      expect(body.artifact).toBe(odd.text);
    }
  },
);

it('sends a lone surrogate and NUL as escapes in the JSON text', () => {
  const schema = bodySchema('createEvaluation');
  const base = fullValidValue(schema);
  const text = (name: string) =>
    JSON.stringify(withOddStrings({ schema, base, text: oddStringClasses.find((odd) => odd.name === name)!.text, accepts }).value);
  const surrogates = text('lone-surrogates');
  expect(surrogates).toContain('"\\ud800a\\udfff\\udc00\\ud800"');
  // Only ASCII on the wire: no replacement character can come from encoding it.
  expect(surrogates).toMatch(/^[\x20-\x7e]+$/);
  expect(text('control-characters')).toContain('"\\u0000\\u0001\\u001f\\b\\f\\n\\r\\t\u007f\u0085"');
});

it('fits odd strings to a field shorter than the class, in code points', () => {
  const schema: JsonSchema = { type: 'object', properties: { short: { type: 'string', minLength: 3, maxLength: 3 } } };
  const { value } = withOddStrings({ schema, base: { short: 'vvv' }, text: '\u{10FFFF}\u{1F600}\u{E0001}\u{F0000}', accepts });
  expect((value as any).short).toBe('\u{10FFFF}\u{1F600}\u{E0001}');
  const padded = withOddStrings({ schema, base: { short: 'vvv' }, text: '\ud800', accepts });
  expect((padded.value as any).short).toBe('\ud800vv');
});

it('gives getJob odd jobIds the jobId schema takes, each once, the dot segments marked', () => {
  const getJob = contract.operations.find((operation) => operation.operationId === 'getJob')!;
  const schema = getJob.parameters.find((parameter) => parameter.name === 'jobId')!.schema;
  const values = oddPathValues(schema, (value) => accepts(schema, value));
  expect(values.length).toBeGreaterThanOrEqual(8);
  for (const { value } of values) expect(validator.validateSchema(schema, value)).toEqual([]);
  expect(values.map((value) => encodeURIComponent(value.value))).toEqual(
    expect.arrayContaining(['eh-unknown%2Fjob', 'eh-unknown%5Cjob', 'eh-unknown%252Fjob', 'eh-unknown%00job', '..%2F..%2Fhealth']),
  );
  expect(values.filter((value) => value.dotSegment).map((value) => value.value)).toEqual(['..', '.']);
  expect(values.map((value) => codePointLength(value.value))).toContain(limits.jobIdLength.max);
  // A pattern that refuses them leaves none.
  const patterned: JsonSchema = { type: 'string', pattern: '^job_[A-Z0-9]{26}$' };
  expect(oddPathValues(patterned, (value) => accepts(patterned, value))).toEqual([]);
});

it('sends a dot segment as written, and its curl line keeps it', () => {
  expect(writtenTarget('http://127.0.0.1:8080/v0/jobs/..')).toBe('/v0/jobs/..');
  expect(writtenTarget('http://127.0.0.1:8080/api/v0/jobs/.')).toBe('/api/v0/jobs/.');
  expect(writtenTarget('http://127.0.0.1:8080/v0/jobs/eh-unknown%2Fjob')).toBeUndefined();
  expect(toCurl({ method: 'GET', url: 'http://127.0.0.1:8080/v0/jobs/..', headers: {} })).toBe(
    "curl -i -X GET 'http://127.0.0.1:8080/v0/jobs/..' --path-as-is",
  );
  expect(toCurl({ method: 'GET', url: 'http://127.0.0.1:8080/v0/jobs/x', headers: {} })).toBe(
    "curl -i -X GET 'http://127.0.0.1:8080/v0/jobs/x'",
  );
});
