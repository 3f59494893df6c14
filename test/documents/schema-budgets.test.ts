/**
 * Budgets checked before conversion and at load, in the isomorphic part (issue 32, point 3):
 * a huge enum or object schema is refused naming its pointer, never "Maximum call stack size
 * exceeded" at request time; x-max-body-bytes is held to the mock's own limit; an example whose
 * $refs form a cycle is refused at load; a value nested past the budget is refused without the
 * check itself recursing.
 */

import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseWorkflowDocument } from '../../src/conformance/workflows/arazzo-document.js';
import { cyclePointer, schemaLimits, shapeBreach, shapeProblem } from '../../src/contract/document-budget.js';
import { bodyLimits } from '../../src/contract/limits.js';
import { UnsupportedSchemaError, zodFromJsonSchema } from '../../src/contract/schema-to-zod.js';
import { buildEngineContract, contractFromDocument } from '../../src/engine/engine-contract.js';
import { createMockEngine } from '../../src/engine/index.js';
import { bundledSpecPath } from '../../src/openapi/package-root.js';
import { profileShapeProblem } from '../../src/profile/profile.js';

const pattern = () => () => true;
const bundled = () => parse(readFileSync(bundledSpecPath(), 'utf8')) as Record<string, any>;

it('refuses a 500,000-value enum before converting it, naming the pointer', () => {
  const schema = { type: 'string', enum: Array.from({ length: 500_000 }, (_, index) => `v${index}`) };
  expect(() => zodFromJsonSchema(schema, { pointer: 'createEvaluation/requestBody', pattern })).toThrow(
    /createEvaluation\/requestBody\/enum: 500000 values; an enum of at most 4096/,
  );
});

it('refuses 40,000 optional properties before converting them, naming the pointer', () => {
  const properties = Object.fromEntries(Array.from({ length: 40_000 }, (_, index) => [`p${index}`, { type: 'string' }]));
  const schema = { type: 'object', properties: { inner: { type: 'object', properties } } };
  expect(() => zodFromJsonSchema(schema, { pointer: 'x', pattern })).toThrow(UnsupportedSchemaError);
  expect(() => zodFromJsonSchema(schema, { pointer: 'x', pattern })).toThrow(/^x\/properties\/inner\/properties: 40000 properties/);
});

it('serves schemas at the budgets: the validators built answer without exhausting the stack', () => {
  const values = Array.from({ length: schemaLimits.maxEnumValues }, (_, index) => index);
  const numbers = zodFromJsonSchema({ enum: values }, { pattern });
  expect(numbers.safeParse(schemaLimits.maxEnumValues - 1).success).toBe(true);
  expect(numbers.safeParse(-1).success).toBe(false);
  const properties = Object.fromEntries(
    Array.from({ length: schemaLimits.maxProperties }, (_, index) => [`p${index}`, { type: 'string' }]),
  );
  const object = zodFromJsonSchema({ type: 'object', properties, additionalProperties: false }, { pattern });
  const body = Object.fromEntries(Object.keys(properties).map((name) => [name, 'x']));
  expect(object.safeParse(body).success).toBe(true);
  expect(object.safeParse({ ...body, p0: 1 }).success).toBe(false);
});

it('refuses a schema that expands past the node budget through shared subschemas', () => {
  // Each level refers to the one below twice: 2^20 uses of a few objects.
  let schema: Record<string, unknown> = { type: 'string' };
  for (let level = 0; level < 20; level += 1) schema = { type: 'object', properties: { a: schema, b: schema } };
  expect(() => zodFromJsonSchema(schema, { pattern })).toThrow(/more than 100000 schema objects/);
});

it("refuses x-max-body-bytes above the mock's own limit at load, and accepts it at the limit", async () => {
  const document = bundled();
  const create = document.paths['/v0/evaluations'].post;
  create.requestBody['x-max-body-bytes'] = 9007199254740991;
  expect(() => contractFromDocument(document)).toThrow(
    /createEvaluation\/requestBody\/x-max-body-bytes is 9007199254740991; a document may set at most 16777216 bytes/,
  );
  create.requestBody['x-max-body-bytes'] = bodyLimits.maxDocumentBodyBytes;
  expect((await buildEngineContract(document)).createEvaluation.maxBodyBytes).toBe(bodyLimits.maxDocumentBodyBytes);
});

it('refuses an example whose $refs form a cycle at load, naming where', () => {
  const document = bundled();
  const example: Record<string, unknown> = { id: 'x' };
  example.self = { again: example };
  document.paths['/v0/extra'] = {
    get: { operationId: 'extra', responses: { '200': { description: 'ok', content: { 'application/json': { example } } } } },
  };
  expect(() => contractFromDocument(document)).toThrow(/extra: the example of response 200 contains itself at \/self\/again/);
  expect(() => createMockEngine({ spec: document })).toThrow(/contains itself/);
});

it('finds cycles, not shared values', () => {
  const shared = { a: 1 };
  expect(cyclePointer({ left: shared, right: shared })).toBeUndefined();
  const looped: Record<string, unknown> = {};
  looped.list = [1, { back: looped }];
  expect(cyclePointer(looped)).toBe('/list/1/back');
});

it('measures depth and size without recursing, whatever the nesting', () => {
  let deep: unknown = 'leaf';
  for (let level = 0; level < 100_000; level += 1) deep = [deep];
  expect(shapeProblem(deep)).toEqual({ pointer: `/0`.repeat(257), problem: 'the document nests more than 256 levels deep' });
  expect(
    shapeProblem(
      Array.from({ length: 10 }, () => [1, 2]),
      { maxNodes: 20 },
    )?.problem,
  ).toBe('the document holds more than 20 values');
  expect(shapeProblem(bundled())).toBeUndefined();
});

it('walks a document, a profile and a workflow document with one walk, each at its own bounds and in its own words', () => {
  const nested = (levels: number): unknown => {
    let value: unknown = 'leaf';
    for (let level = 0; level < levels; level += 1) value = { a: value };
    return value;
  };
  expect(shapeBreach(nested(17), { maxDepth: 16 })).toMatchObject({ bound: 'depth', limit: 16 });
  expect(profileShapeProblem(nested(16))).toBeUndefined();
  expect(profileShapeProblem(nested(17))).toBe('it is nested more than 16 levels deep');
  expect(profileShapeProblem(Array.from({ length: 10_000 }, () => 0))).toBe('it holds more than 10000 values');
  expect(shapeProblem(nested(17))).toBeUndefined();
  expect(() => parseWorkflowDocument(JSON.stringify(nested(65)), 'deep.arazzo.json')).toThrow(
    'deep.arazzo.json: it is nested more than 64 levels deep',
  );
  // A value that contains itself: each place counted, it passes a bound; each object once, it is measured by its shape.
  const looped: Record<string, unknown> = {};
  looped.self = looped;
  expect(shapeBreach(looped, { maxDepth: 16 })).toMatchObject({ bound: 'depth', limit: 16 });
  expect(shapeBreach(looped, { maxDepth: 16, eachObjectOnce: true })).toBeUndefined();
});

it('holds an object handed to createMockEngine to the depth budget, and still takes a dereferenced recursive one', async () => {
  // 100,000 levels built by a library caller: refused with the pointer's start, not a stack overflow.
  let deep: Record<string, unknown> = {};
  const root = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {}, 'x-deep': deep };
  for (let level = 0; level < 100_000; level += 1) {
    const child = {};
    deep.a = child;
    deep = child;
  }
  expect(() => createMockEngine({ spec: root })).toThrow(/refused: the document nests more than 256 levels deep \(at \/x-deep\/a\/a/);
  // A schema that refers to itself, dereferenced into a cycle of objects, is a shape, not a depth.
  const document = parse(readFileSync(bundledSpecPath(), 'utf8'));
  const node: Record<string, unknown> = { type: 'object', properties: {} };
  (node.properties as Record<string, unknown>).child = node;
  document.components.schemas.Tree = node;
  expect(() => contractFromDocument(document)).not.toThrow();
});
