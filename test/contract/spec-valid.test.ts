/**
 * spec/openapi.yaml is a valid OpenAPI 3.1 document by both validators the issue names, every
 * schema in it compiles under a strict JSON Schema 2020-12 validator, and every example in it
 * is valid against the schema it illustrates.
 */

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { beforeAll, expect, it } from 'vitest';
import type { ContractDocument, JsonSchema } from '../../src/openapi/document.js';
import { bundledSpecPath, packageRoot } from '../../src/openapi/package-root.js';
import { createSchemaValidator } from '../../src/openapi/schema-validator.js';
import { bundledContract } from '../support/contract.js';

let contract: ContractDocument;
beforeAll(async () => {
  contract = await bundledContract();
});

it('passes @apidevtools/swagger-parser validation', async () => {
  const api = (await SwaggerParser.validate(bundledSpecPath())) as { openapi: string };
  expect(api.openapi).toBe('3.1.0');
});

it('passes spectral with the spectral:oas ruleset with 0 errors', async () => {
  const spectral = `${packageRoot()}/node_modules/.bin/spectral`;
  const { stdout } = await promisify(execFile)(
    spectral,
    ['lint', bundledSpecPath(), '--ruleset', `${packageRoot()}/.spectral.yaml`, '--format', 'json', '--fail-severity', 'error', '--quiet'],
    { env: { ...process.env, SCARF_ANALYTICS: 'false' } },
  ).catch((error: { stdout?: string; message: string }) => ({ stdout: error.stdout ?? error.message }));
  const results = JSON.parse(stdout || '[]') as { code: string; severity: number; message: string; path: string[] }[];
  const errors = results.filter((result) => result.severity === 0);
  expect(errors.map((error) => `${error.code} at ${error.path.join('.')}: ${error.message}`)).toEqual([]);
});

/** Every schema object in the document with a readable location. */
function everySchema(): { where: string; schema: JsonSchema }[] {
  const found: { where: string; schema: JsonSchema }[] = [];
  for (const [name, schema] of Object.entries(contract.schemas)) found.push({ where: `components.schemas.${name}`, schema });
  for (const operation of contract.operations) {
    for (const parameter of operation.parameters)
      found.push({ where: `${operation.operationId} parameter ${parameter.name}`, schema: parameter.schema });
    for (const [mediaType, schema] of Object.entries(operation.requestBody?.content ?? {})) {
      if (schema) found.push({ where: `${operation.operationId} request ${mediaType}`, schema });
    }
    for (const response of operation.responses) {
      for (const [mediaType, schema] of Object.entries(response.content)) {
        if (schema) found.push({ where: `${operation.operationId} ${response.status} ${mediaType}`, schema });
      }
    }
  }
  return found;
}

it('has schemas that compile under strict JSON Schema 2020-12', () => {
  const ajv = createSchemaValidator();
  for (const { where, schema } of everySchema()) {
    expect(() => ajv.compile(schema), where).not.toThrow();
  }
});

it('has at least one example for every component schema, each valid against it', () => {
  const ajv = createSchemaValidator();
  for (const [name, schema] of Object.entries(contract.schemas)) {
    const examples = (schema.examples as unknown[] | undefined) ?? [];
    expect(examples.length, `components.schemas.${name} has no examples`).toBeGreaterThan(0);
    const validate = ajv.compile(schema);
    for (const example of examples)
      expect(validate(example), `${name} example ${JSON.stringify(example)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  }
});

it('has an example for every request body, parameter and response of every operation, each valid', () => {
  const ajv = createSchemaValidator();
  const raw = contract.document;
  for (const operation of contract.operations) {
    const check = (where: string, schema: JsonSchema | undefined, examples: readonly unknown[]) => {
      expect(examples.length, `${where} has no example`).toBeGreaterThan(0);
      const validate = ajv.compile(schema ?? {});
      for (const example of examples) expect(validate(example), `${where}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    };
    for (const [mediaType, schema] of Object.entries(operation.requestBody?.content ?? {})) {
      check(`${operation.operationId} request ${mediaType}`, schema, operation.requestBody?.examples[mediaType] ?? []);
    }
    for (const response of operation.responses) {
      for (const [mediaType, schema] of Object.entries(response.content)) {
        check(`${operation.operationId} ${response.status} ${mediaType}`, schema, response.examples[mediaType] ?? []);
      }
    }
    const pathItem = raw.paths[operation.path][operation.method];
    for (const parameter of pathItem.parameters ?? []) {
      check(
        `${operation.operationId} parameter ${parameter.name}`,
        parameter.schema,
        parameter.example === undefined ? [] : [parameter.example],
      );
    }
  }
});

it('marks the contract and every operation design-only and not implemented', () => {
  const raw = contract.document;
  expect(raw.info.version).toBe('0.1.0-draft');
  expect(raw.info['x-contract-status']).toBe('design-only');
  expect(raw.info['x-implemented']).toBe(false);
  for (const operation of contract.operations) {
    expect(raw.paths[operation.path][operation.method]['x-implemented'], operation.operationId).toBe(false);
  }
});
