/**
 * Issue 32: two unrelated documents of about 10 MB each once took 26 to 64 s and ~950 MB in the
 * comparison before its step budget refused them, because the budget was paid only as the rules
 * wrote canonical forms (three times over, once per component rule). The budget is now paid for
 * the documents' values before any rule runs, and the component matching refuses a walk the
 * budget cannot finish before starting it. Timings are the bench's (docs/reliability.md).
 */
import { expect, it } from 'vitest';
import { DiffLimitError, diffDocuments } from '../../src/evolution/index.js';

/** An OpenAPI document of `count` object schemas and as many operations, every name prefixed by `prefix`. */
function unrelated(prefix: string, count: number): Record<string, any> {
  const schemas: Record<string, unknown> = {};
  const paths: Record<string, unknown> = {};
  for (let index = 0; index < count; index += 1) {
    const properties: Record<string, unknown> = {};
    for (let property = 0; property < 10; property += 1)
      properties[`${prefix}${property}`] = { type: 'string', maxLength: index + property, description: 'x'.repeat(20) };
    schemas[`${prefix}${index}`] = { type: 'object', properties };
    paths[`/${prefix}/${index}`] = {
      post: {
        operationId: `${prefix}${index}`,
        requestBody: { content: { 'application/json': { schema: { $ref: `#/components/schemas/${prefix}${index}` } } } },
        responses: { '200': { description: 'ok' } },
      },
    };
  }
  return { openapi: '3.1.0', info: { title: prefix, version: '1' }, paths, components: { schemas } };
}

it('refuses two unrelated documents of about 10 MB each, saying which bound and why', () => {
  // 11,000 schemas of ten properties: about 10 MB of JSON each, as in the attack.
  const before = unrelated('a', 11_000);
  const after = unrelated('b', 11_000);
  expect(JSON.stringify(before).length).toBeGreaterThan(9_000_000);
  const compare = () => diffDocuments({ old: { document: before, source: 'old.json' }, new: { document: after, source: 'new.json' } });
  expect(compare).toThrow(DiffLimitError);
  expect(compare).toThrow(/more than 2000000 steps to compare \(the components\.schemas only one of them has alone would pass it\)/);
});

it('refuses documents whose values alone pass the budget before comparing anything', () => {
  const document = unrelated('a', 200);
  const compare = () =>
    diffDocuments({ old: { document, source: 'old.json' }, new: { document, source: 'new.json' }, limits: { maxSteps: 10_000 } });
  expect(compare).toThrow(
    /OLD and NEW together hold more than the 10000 values and steps the diff compares \(reached counting (OLD|NEW)\)/,
  );
});

it('still compares two large documents that differ in a little', () => {
  const before = unrelated('a', 2000);
  const after = structuredClone(before);
  after.components.schemas.a7.properties.a3.maxLength = 1;
  const report = diffDocuments({ old: { document: before, source: 'old.json' }, new: { document: after, source: 'new.json' } });
  expect(report.changes).toHaveLength(1);
  expect(report.changes[0]!.message).toMatch(/a7.*a3|a3.*a7/);
});
