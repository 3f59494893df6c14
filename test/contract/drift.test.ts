/**
 * The drift test: the zod schemas of src/contract accept exactly what the components and
 * parameters of spec/openapi.yaml accept (see test/support/drift.ts for the two proofs). An
 * edit to one side alone — a limit, an enum value, a pattern, a required field — fails here.
 */
import { beforeAll, expect, it } from 'vitest';
import type * as z from 'zod';
import { componentSchemas, parameterSchemas } from '../../src/contract/schemas.js';
import type { ContractDocument, JsonSchema } from '../../src/openapi/document.js';
import { bundledContract } from '../support/contract.js';
import { findDrift } from '../support/drift.js';

const seed = Number(process.env.DRIFT_SEED ?? 20261122);
let contract: ContractDocument;

beforeAll(async () => {
  contract = await bundledContract();
});

function specParameter(key: string): JsonSchema {
  const [operationId, location, name] = key.split('.');
  const operation = contract.operations.find((candidate) => candidate.operationId === operationId);
  const parameter = operation?.parameters.find((candidate) => candidate.in === location && candidate.name === name);
  if (!parameter) throw new Error(`spec has no parameter ${key}`);
  return parameter.schema;
}

it('has a zod schema for every component schema of the spec', () => {
  expect(Object.keys(componentSchemas).sort()).toEqual(Object.keys(contract.schemas).sort());
});

it('has a zod schema for every parameter of the spec', () => {
  const specKeys = contract.operations.flatMap((operation) =>
    operation.parameters.map((parameter) => `${operation.operationId}.${parameter.in}.${parameter.name}`),
  );
  expect(Object.keys(parameterSchemas).sort()).toEqual(specKeys.sort());
});

it.each(Object.keys(componentSchemas))('zod and the spec agree on components.schemas.%s', (name) => {
  const zod = componentSchemas[name as keyof typeof componentSchemas] as z.ZodType;
  expect(findDrift({ zod, spec: contract.schemas[name] as JsonSchema, seed })).toEqual([]);
});

it.each(Object.keys(parameterSchemas))('zod and the spec agree on parameter %s', (key) => {
  const zod = parameterSchemas[key as keyof typeof parameterSchemas] as z.ZodType;
  expect(findDrift({ zod, spec: specParameter(key), seed })).toEqual([]);
});
