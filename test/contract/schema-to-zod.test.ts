/**
 * The converter that lets the mock follow any document (src/contract/schema-to-zod.ts): on the
 * bundled document it must give exactly the hand-written schemas' verdicts and messages, so the
 * mock answers the same whichever way its contract was built; on what it cannot honour it must
 * refuse, naming where, rather than accept what the document forbids.
 */
import { beforeAll, expect, it } from 'vitest';
import type * as z from 'zod';
import { fullValidValue, mutationsOf } from '../../src/conformance/generators/mutations.js';
import { zodFromJsonSchema as convertWith, describePattern, UnsupportedSchemaError } from '../../src/contract/schema-to-zod.js';
import { componentSchemas, parameterSchemas } from '../../src/contract/schemas.js';
import { PatternBook } from '../../src/engine/patterns.js';
import { diagnose } from '../../src/engine/validation.js';
import type { ContractDocument, JsonSchema } from '../../src/openapi/document.js';
import { bundledContract } from '../support/contract.js';
import { findDrift } from '../support/drift.js';
import { inTime } from '../support/time-limits.js';

/** One book for the file: its patterns are compiled by `await patterns.ready()` before values are judged. */
const patterns = new PatternBook();
const zodFromJsonSchema = (schema: JsonSchema | boolean, options: { pointer?: string } = {}) =>
  convertWith(schema, { ...options, pattern: patterns.tester });

let contract: ContractDocument;
beforeAll(async () => {
  contract = await bundledContract();
});

it.each(Object.keys(componentSchemas))('converts components.schemas.%s to what the spec accepts', async (name) => {
  const converted = zodFromJsonSchema(contract.schemas[name] as JsonSchema);
  await patterns.ready();
  expect(findDrift({ zod: converted, spec: contract.schemas[name] as JsonSchema, seed: 20261125 })).toEqual([]);
});

it.each(Object.keys(componentSchemas))('gives the hand-written messages for every single-constraint mutation of %s', async (name) => {
  const spec = contract.schemas[name] as JsonSchema;
  const converted = zodFromJsonSchema(spec);
  await patterns.ready();
  const handWritten = componentSchemas[name as keyof typeof componentSchemas] as z.ZodType;
  const values = [fullValidValue(spec), ...mutationsOf(spec).map((mutation) => mutation.value)];
  expect(values.length).toBeGreaterThan(3);
  for (const value of values) expect(diagnose({ schema: converted, value })).toEqual(diagnose({ schema: handWritten, value }));
});

it('converts the parameters as the hand-written ones check them', () => {
  const jobId = contract.operations.find((operation) => operation.operationId === 'getJob')!.parameters[0]!.schema;
  const converted = zodFromJsonSchema(jobId);
  for (const value of ['', 'a', 'x'.repeat(128), 'x'.repeat(129), '😀'.repeat(128), '😀'.repeat(129)])
    expect(diagnose({ schema: converted, value })).toEqual(diagnose({ schema: parameterSchemas['getJob.path.jobId'], value }));
});

it('refuses what it cannot honour, naming where, instead of accepting what the document forbids', () => {
  expect(() => zodFromJsonSchema({ type: 'object', properties: { a: { type: 'string', unevaluatedProperties: false } } })).toThrow(
    UnsupportedSchemaError,
  );
  expect(() => zodFromJsonSchema({ type: 'object', properties: { a: { type: 'string', unevaluatedProperties: false } } })).toThrow(
    '/properties/a/unevaluatedProperties: the keyword unevaluatedProperties is not supported by the mock',
  );
  expect(() => zodFromJsonSchema({ type: 'string', pattern: '(' })).toThrow('/pattern: must be a valid regular expression');
  expect(() => zodFromJsonSchema({ type: 'string', pattern: '^(a)\\1$' })).toThrow('/pattern: uses a backreference');
  expect(() => zodFromJsonSchema({ type: 'string', pattern: '^(?=a)' })).toThrow('/pattern: uses lookahead or lookbehind');
  expect(() => zodFromJsonSchema({ type: 'fish' })).toThrow('unknown type "fish"');
  let deep: Record<string, unknown> = { type: 'string' };
  for (let level = 0; level < 200; level += 1) deep = { type: 'array', items: deep };
  expect(() => zodFromJsonSchema(deep)).toThrow(/nested more than 64 levels deep/);
});

it('reads a new optional field, a new enum value and a loosened limit as the document says', () => {
  const schema = {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: {
      status: { type: 'string', enum: ['QUEUED', 'RUNNING', 'PAUSED'] },
      note: { type: 'string', maxLength: 4 },
      count: { type: 'integer', minimum: 0, maximum: 3 },
    },
  };
  const converted = zodFromJsonSchema(schema);
  expect(diagnose({ schema: converted, value: { status: 'PAUSED', note: '😀😀😀😀', count: 3 } })).toEqual([]);
  expect(diagnose({ schema: converted, value: { status: 'DONE', note: 'abcde', count: 4, extra: 1 } })).toEqual([
    { path: '/status', message: 'must be one of "QUEUED", "RUNNING", "PAUSED"', overMaximum: false, constraint: 'enum' },
    { path: '/note', message: 'must be at most 4 characters long', overMaximum: true, constraint: 'maxLength' },
    // A number's maximum is no condition a profile names (the runner's probes break none).
    { path: '/count', message: expect.any(String), overMaximum: true },
    { path: '/extra', message: 'is not a property of the contract', overMaximum: false, constraint: 'additionalProperties' },
  ]);
});

it('matches a pattern that backtracks for ever in JavaScript in linear time', async () => {
  // (a+)+$ against 'a' × 40 + '!' takes JavaScript's RegExp about 2^40 steps.
  const converted = zodFromJsonSchema({ type: 'string', pattern: '^(a+)+$', maxLength: 100_000 });
  await patterns.ready();
  const started = performance.now();
  expect(diagnose({ schema: converted, value: `${'a'.repeat(50_000)}!` })).toEqual([
    { path: '/', message: 'must match the pattern ^(a+)+$', overMaximum: false, constraint: 'pattern' },
  ]);
  expect(diagnose({ schema: converted, value: 'aaaa' })).toEqual([]);
  // Ends: linear matching of 50,000 characters takes milliseconds; backtracking never ends.
  expect(performance.now() - started).toBeLessThan(inTime());
});

it('compiles patterns RE2 refuses at ready(), naming where they sit', async () => {
  const book = new PatternBook();
  convertWith({ type: 'object', properties: { a: { type: 'string', pattern: '[[:word:]' } } }, { pointer: 'x', pattern: book.tester });
  await expect(book.ready()).rejects.toThrow(/^x\/properties\/a\/pattern: /);
});

it('says a plain pattern in words', () => {
  expect(describePattern('^[0-9a-f]{64}$')).toBe('must be 64 lowercase hex characters');
  expect(describePattern('^job_[A-Z0-9]+$')).toBe('must match the pattern ^job_[A-Z0-9]+$');
});
