/**
 * spec/openapi.yaml states the contract and nothing more: this reads the tables of the
 * contract itself (docs/contract/http-contract.md, a verbatim copy of the shared contract) and
 * checks every field, type, requirement and constraint of section 2, every limit of section 8
 * and exactly the responses of section 4 against the spec.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractDocument, JsonSchema } from '../../src/openapi/document.js';
import { packageRoot } from '../../src/openapi/package-root.js';
import { bundledContract } from '../support/contract.js';

const contractPath = join(packageRoot(), 'docs', 'contract', 'http-contract.md');
const markdown = readFileSync(contractPath, 'utf8');

/** The rows of the first table after a heading that starts with `heading`. */
function tableAfter(heading: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(heading));
  if (start < 0) throw new Error(`contract has no heading ${heading}`);
  const rows: string[][] = [];
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('#')) break;
    if (line.startsWith('|')) {
      inTable = true;
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      if (!cells.every((cell) => /^-+$/.test(cell))) rows.push(cells);
    } else if (inTable) break;
  }
  return rows.slice(1); // without the header row
}

let contract: ContractDocument;
beforeAll(async () => {
  contract = await bundledContract();
});

it('keeps docs/contract/http-contract.md identical to the shared contract', () => {
  const shared = join(packageRoot(), '..', 'shared', 'contract', 'http-contract.md');
  if (!existsSync(shared)) return; // a clone without the shared folder beside it
  expect(markdown).toBe(readFileSync(shared, 'utf8'));
});

const objectSections = ['EvaluationRequest', 'EvidenceReference', 'Job', 'VerificationRequest', 'VerificationResult', 'Error'];

type Reading = readonly [RegExp, (match: RegExpExecArray) => Record<string, unknown>];

/** How each wording of a "Constraints" cell of section 2 reads as JSON Schema. */
const constraintReadings: readonly Reading[] = [
  [/^one of: (.+)$/, (m) => ({ enum: m[1]!.split(', ') })],
  [/^length (\d+) to (\d+)$/, (m) => ({ minLength: Number(m[1]), maxLength: Number(m[2]) })],
  [/^pattern (\S+)/, (m) => ({ pattern: m[1] })],
  [/^(\d+) to (\d+) items$/, (m) => ({ minItems: Number(m[1]), maxItems: Number(m[2]) })],
  [
    /^at most (\d+) items, each at most (\d+) characters$/,
    (m) => ({ maxItems: Number(m[1]), items: { type: 'string', maxLength: Number(m[2]) } }),
  ],
  [/^URI format, at most (\d+) characters/, (m) => ({ format: 'uri', maxLength: Number(m[1]) })],
  [/^at most (\d+) characters/, (m) => ({ maxLength: Number(m[1]) })],
];

/** Expected JSON Schema constraints for one "Constraints" cell of section 2. */
function constraintsFromCell(cell: string): Record<string, unknown> {
  for (const [pattern, read] of constraintReadings) {
    const match = pattern.exec(cell);
    if (match) return read(match);
  }
  throw new Error(`unparsed constraint: ${cell}`);
}

describe.each(objectSections)('section 2: %s', (name) => {
  const rows = tableAfter(`### ${name}`);

  it('has exactly the fields of the contract, and rejects unknown properties', () => {
    const schema = contract.schemas[name] as JsonSchema;
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties as object).sort()).toEqual(rows.map((row) => row[0]).sort());
    expect([...((schema.required as string[]) ?? [])].sort()).toEqual(
      rows
        .filter((row) => row[2] === 'yes')
        .map((row) => row[0])
        .sort(),
    );
  });

  it.each(rows.map((row) => [row[0]!, row]))('states field %s as the contract does', (_field, row) => {
    const [field, type, , constraints] = row as [string, string, string, string];
    const property = (contract.schemas[name] as any).properties[field] as JsonSchema;
    const arrayOf = /^array of (\w+)$/.exec(type);
    if (arrayOf) {
      expect(property.type).toBe('array');
      if (arrayOf[1] === 'string') expect((property.items as JsonSchema).type).toBe('string');
      else expect(property.items).toBe(contract.schemas[arrayOf[1]!]);
    } else {
      expect(property.type).toBe(type);
    }
    const { items, ...expected } = constraintsFromCell(constraints);
    for (const [keyword, value] of Object.entries(expected)) expect(property[keyword], `${field}.${keyword}`).toEqual(value);
    if (items) expect({ type: (property.items as any).type, maxLength: (property.items as any).maxLength }).toEqual(items);
    const stated = ['enum', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'format'].filter((keyword) => keyword in property);
    expect(stated.sort(), `${field} states a constraint the contract does not`).toEqual(Object.keys(expected).sort());
  });
});

describe('section 8: limits', () => {
  const rows = tableAfter('## 8. Limits');
  /** Where each limit of section 8 lives in the spec. */
  const locations: Record<string, (c: ContractDocument) => JsonSchema[]> = {
    'Idempotency-Key length': (c) => [param(c, 'createEvaluation', 'Idempotency-Key')],
    'jobId length': (c) => [param(c, 'getJob', 'jobId'), prop(c, 'Job', 'jobId')],
    'operationId length': (c) => [prop(c, 'EvaluationRequest', 'operationId')],
    'expectedOperationId length': (c) => [prop(c, 'VerificationRequest', 'expectedOperationId')],
    'expectedIssuer length': (c) => [prop(c, 'VerificationRequest', 'expectedIssuer')],
    'evidence items per evaluation': (c) => [prop(c, 'EvaluationRequest', 'evidence')],
    'EvidenceReference id length': (c) => [prop(c, 'EvidenceReference', 'id')],
    'EvidenceReference uri length': (c) => [prop(c, 'EvidenceReference', 'uri')],
    'EvidenceReference network length': (c) => [prop(c, 'EvidenceReference', 'network')],
    'artifact length': (c) => [prop(c, 'VerificationRequest', 'artifact')],
    'limitations items': (c) => [prop(c, 'Job', 'limitations')],
    'reasons items': (c) => [prop(c, 'VerificationResult', 'reasons')],
    'Error code length': (c) => [prop(c, 'Error', 'code')],
    'Error message length': (c) => [prop(c, 'Error', 'message')],
  };

  it('maps every limit of the contract', () => {
    expect(rows.map((row) => row[0]).sort()).toEqual(Object.keys(locations).sort());
  });

  it.each(rows.map((row) => [row[0]!, row[1]!]))('states %s (%s)', (limit, value) => {
    for (const schema of locations[limit]!(contract)) {
      const isArray = schema.type === 'array';
      const range = /^(\d+) to (\d+)$/.exec(value);
      const itemsAndLength = /^at most (\d+), each at most (\d+) characters$/.exec(value);
      const upper = /^at most (\d+)( characters)?$/.exec(value);
      if (range) {
        expect(isArray ? [schema.minItems, schema.maxItems] : [schema.minLength, schema.maxLength]).toEqual([
          Number(range[1]),
          Number(range[2]),
        ]);
      } else if (itemsAndLength) {
        expect([schema.maxItems, (schema.items as JsonSchema).maxLength]).toEqual([Number(itemsAndLength[1]), Number(itemsAndLength[2])]);
      } else if (upper) {
        expect(schema.maxLength).toBe(Number(upper[1]));
      } else {
        throw new Error(`unparsed limit ${limit}: ${value}`);
      }
    }
  });
});

function param(c: ContractDocument, operationId: string, name: string): JsonSchema {
  const found = c.operations.find((operation) => operation.operationId === operationId)?.parameters.find((p) => p.name === name);
  if (!found) throw new Error(`spec has no parameter ${name} on ${operationId}`);
  expect(found.required).toBe(true);
  return found.schema;
}

function prop(c: ContractDocument, component: string, field: string): JsonSchema {
  return (c.schemas[component] as any).properties[field];
}

describe('section 4: endpoints', () => {
  const headings = markdown.split('\n').filter((line) => /^### (GET|POST) /.test(line));
  const endpoints = headings.map((line) => {
    const [, method, path, operationId] = /^### (GET|POST) (\S+)(?: \(operationId (\w+)\))?/.exec(line)!;
    return { heading: line.slice(4), method: method!.toLowerCase(), path: path!, operationId: operationId ?? 'health' };
  });

  it('has exactly the four operations of the contract', () => {
    expect(contract.operations.map((o) => `${o.method} ${o.path} ${o.operationId}`).sort()).toEqual(
      endpoints.map((e) => `${e.method} ${e.path} ${e.operationId}`).sort(),
    );
  });

  it.each(endpoints.map((endpoint) => [endpoint.heading, endpoint]))(
    '%s answers exactly the contract’s responses',
    (_heading, endpoint) => {
      const operation = contract.operations.find((candidate) => candidate.operationId === endpoint.operationId)!;
      const rows = endpoint.operationId === 'health' ? [['200', '(not shown)']] : tableAfter(`### ${endpoint.heading}`);
      expect(operation.responses.map((response) => response.status).sort()).toEqual(rows.map((row) => row[0]).sort());
      for (const [status, body] of rows) {
        const response = operation.responses.find((candidate) => candidate.status === status)!;
        expect(Object.keys(response.content), `${endpoint.operationId} ${status}`).toEqual(['application/json']);
        if (body !== '(not shown)')
          expect(response.content['application/json'], `${endpoint.operationId} ${status}`).toBe(contract.schemas[body!]);
      }
      const start = markdown.indexOf(`### ${endpoint.heading}`);
      const end = markdown.indexOf('\n#', start + 4);
      const bodyLine = /Request body \(required\): (\w+)/.exec(markdown.slice(start, end < 0 ? undefined : end));
      if (bodyLine) {
        expect(operation.requestBody?.required).toBe(true);
        expect(operation.requestBody?.content['application/json']).toBe(contract.schemas[bodyLine[1]!]);
      } else {
        expect(operation.requestBody).toBeUndefined();
      }
    },
  );

  it('declares the Idempotency-Key header on createEvaluation only', () => {
    for (const operation of contract.operations) {
      const declared = operation.parameters.some((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key');
      expect(declared, operation.operationId).toBe(operation.operationId === 'createEvaluation');
    }
  });
});
