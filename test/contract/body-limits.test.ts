/**
 * The body limits of src/contract/limits.ts never refuse a valid request: each is above the
 * largest body a schema-valid request can have in compact JSON, even with every character of
 * every key and string written as a \u escape (12 bytes for an astral code point), and it is
 * the smallest power of two that is (docs/assumptions.md A-13).
 */
import { beforeAll, expect, it } from 'vitest';
import { bodyLimits } from '../../src/contract/limits.js';
import type { ContractDocument, JsonSchema } from '../../src/openapi/document.js';
import { createSchemaValidator } from '../../src/openapi/schema-validator.js';
import { bundledContract } from '../support/contract.js';

let contract: ContractDocument;
beforeAll(async () => {
  contract = await bundledContract();
});

/** The largest value a schema allows: every property present, every limit reached. */
function largestValue(schema: JsonSchema): unknown {
  if (Array.isArray(schema.enum)) return [...(schema.enum as string[])].sort((a, b) => b.length - a.length)[0];
  if (schema.type === 'object') {
    const properties = Object.entries((schema.properties as Record<string, JsonSchema>) ?? {});
    return Object.fromEntries(properties.map(([name, property]) => [name, largestValue(property)]));
  }
  if (schema.type === 'array') return Array.from({ length: schema.maxItems as number }, () => largestValue(schema.items as JsonSchema));
  if (schema.format === 'uri') return `https://${'a'.repeat((schema.maxLength as number) - 8)}`;
  if (schema.pattern === '^[0-9a-f]{64}$') return 'f'.repeat(64);
  return '\u{1F600}'.repeat(schema.maxLength as number);
}

/** Compact JSON with every UTF-16 unit of every string escaped: the costliest valid spelling. */
function costliestJson(value: unknown): string {
  const escapeAll = (text: string) =>
    `"${Array.from({ length: text.length }, (_, i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`;
  if (typeof value === 'string') return escapeAll(value);
  if (Array.isArray(value)) return `[${value.map(costliestJson).join(',')}]`;
  return `{${Object.entries(value as object)
    .map(([key, item]) => `${escapeAll(key)}:${costliestJson(item)}`)
    .join(',')}}`;
}

const operations = [
  { operationId: 'createEvaluation', limit: bodyLimits.createEvaluationBytes },
  { operationId: 'verifyReport', limit: bodyLimits.verifyReportBytes },
];

it.each(operations)('$operationId: the largest valid body fits, and the limit is the next power of two', ({ operationId, limit }) => {
  const operation = contract.operations.find((candidate) => candidate.operationId === operationId)!;
  const schema = operation.requestBody!.content['application/json']!;
  const largest = largestValue(schema);
  expect(createSchemaValidator().validate(schema, largest)).toBe(true);
  const json = costliestJson(largest);
  expect(JSON.parse(json)).toEqual(largest);
  const bytes = Buffer.byteLength(json);
  expect(bytes).toBeLessThanOrEqual(limit);
  expect(bytes).toBeGreaterThan(limit / 2);
});
