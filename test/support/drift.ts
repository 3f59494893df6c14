/**
 * Finds every way a zod schema and a JSON Schema of the spec disagree: by comparing the
 * constraints zod publishes with the spec's, and by running both validators on generated
 * valid values, single-constraint mutations, boundary values and arbitrary JSON.
 */

import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import * as z from 'zod';
import { boundariesOf, mutationsOf } from '../../src/conformance/generators/mutations.js';
import { arbitraryFromSchema } from '../../src/conformance/generators/schema-arbitrary.js';
import type { JsonSchema } from '../../src/openapi/document.js';
import { createSchemaValidator } from '../../src/openapi/schema-validator.js';

const annotations = new Set(['$schema', 'description', 'examples', 'example', 'title', 'summary']);

/** Drops annotations and orders keys and `required`, so only constraints are compared. */
export function constraintsOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(constraintsOf);
  if (!schema || typeof schema !== 'object') return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema).sort(([a], [b]) => a.localeCompare(b))) {
    if (annotations.has(key) || key.startsWith('x-')) continue;
    result[key] = key === 'required' ? [...(value as string[])].sort() : constraintsOf(value);
  }
  return result;
}

export function publishedByZod(schema: z.ZodType): unknown {
  return constraintsOf(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }));
}

export interface DriftOptions {
  readonly zod: z.ZodType;
  readonly spec: JsonSchema;
  readonly seed: number;
  readonly runs?: number;
}

/** Small random edits of a valid value: drop, add or retype one property. */
function nearMiss(valid: unknown): fc.Arbitrary<unknown> {
  if (!valid || typeof valid !== 'object' || Array.isArray(valid)) return fc.constant(valid);
  const record = valid as Record<string, unknown>;
  const keys = Object.keys(record);
  const edits: fc.Arbitrary<unknown>[] = [
    fc.constant(record),
    fc.tuple(fc.string(), fc.jsonValue()).map(([key, value]) => ({ ...record, [key]: value })),
  ];
  if (keys.length > 0) {
    edits.push(
      fc.constantFrom(...keys).map((key) => Object.fromEntries(Object.entries(record).filter(([name]) => name !== key))),
      fc.tuple(fc.constantFrom(...keys), fc.jsonValue()).map(([key, value]) => ({ ...record, [key]: value })),
    );
  }
  return fc.oneof(...edits);
}

/** Every disagreement found, as readable lines; empty when none. */
export function findDrift(options: DriftOptions): string[] {
  const { zod, spec, seed, runs = 200 } = options;
  const drift: string[] = [];
  const published = publishedByZod(zod);
  const stated = constraintsOf(spec);
  if (!isDeepStrictEqual(published, stated)) {
    drift.push(`constraints differ:\n  zod:  ${JSON.stringify(published)}\n  spec: ${JSON.stringify(stated)}`);
  }
  const validate = createSchemaValidator().compile(spec);
  const accepts = (value: unknown) => ({ spec: validate(value), zod: zod.safeParse(value).success });
  for (const mutation of mutationsOf(spec)) {
    const verdict = accepts(mutation.value);
    if (verdict.spec || verdict.zod) drift.push(`mutation ${mutation.description}: ${JSON.stringify(verdict)}, both should reject`);
  }
  for (const boundary of boundariesOf(spec)) {
    const verdict = accepts(boundary.value);
    if (!verdict.spec || !verdict.zod) drift.push(`boundary ${boundary.description}: ${JSON.stringify(verdict)}, both should accept`);
  }
  const generated = fc.check(
    fc.property(arbitraryFromSchema(spec), (value) => {
      const verdict = accepts(value);
      return verdict.spec && verdict.zod;
    }),
    { seed, numRuns: runs },
  );
  if (generated.failed) drift.push(`generated valid value rejected (seed ${seed}): ${JSON.stringify(generated.counterexample)}`);
  const arbitrary = fc.check(
    fc.property(fc.oneof(fc.jsonValue(), arbitraryFromSchema(spec).chain(nearMiss)), (value) => {
      const verdict = accepts(value);
      return verdict.spec === verdict.zod;
    }),
    { seed, numRuns: runs * 2 },
  );
  if (arbitrary.failed) drift.push(`validators disagree (seed ${seed}): ${JSON.stringify(arbitrary.counterexample)}`);
  return drift;
}
