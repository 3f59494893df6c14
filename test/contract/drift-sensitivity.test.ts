/**
 * The drift test must be able to fail. For every constraint the spec states, this applies one
 * edit to a copy of the spec's schema — a limit moved by one, an enum value dropped, a pattern
 * changed, a required field made optional, unknown properties allowed — and asserts that
 * findDrift reports it against the unchanged zod schema.
 */
import { beforeAll, expect, it } from 'vitest';
import type * as z from 'zod';
import { componentSchemas } from '../../src/contract/schemas.js';
import type { ContractDocument, JsonSchema } from '../../src/openapi/document.js';
import { bundledContract } from '../support/contract.js';
import { findDrift } from '../support/drift.js';

interface Edit {
  readonly label: string;
  readonly apply: (schema: JsonSchema) => void;
}

/** One edit per constraint found anywhere in the schema. */
function editsOf(schema: JsonSchema, at: string[] = []): Edit[] {
  const edits: Edit[] = [];
  const here = (label: string, change: (node: JsonSchema) => void): Edit => ({
    label: `/${at.join('/')} ${label}`,
    apply: (root) => change(at.reduce<any>((node, key) => node[key], root)),
  });
  for (const keyword of ['minLength', 'maxLength', 'minItems', 'maxItems'] as const) {
    const value = schema[keyword];
    if (typeof value === 'number') {
      edits.push(
        here(`${keyword} ${value} → ${value + 1}`, (node) => {
          node[keyword] = value + 1;
        }),
      );
      if (value > 0)
        edits.push(
          here(`${keyword} ${value} → ${value - 1}`, (node) => {
            node[keyword] = value - 1;
          }),
        );
    }
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 1) {
    edits.push(
      here(`enum without ${String(schema.enum.at(-1))}`, (node) => {
        node.enum = (node.enum as unknown[]).slice(0, -1);
      }),
    );
  }
  if (typeof schema.pattern === 'string') {
    edits.push(
      here('pattern {64} → {63}', (node) => {
        node.pattern = String(node.pattern).replace('{64}', '{63}');
      }),
    );
  }
  if (schema.format === 'uri')
    edits.push(
      here('format uri removed', (node) => {
        delete node.format;
      }),
    );
  if (schema.additionalProperties === false)
    edits.push(
      here('additionalProperties allowed', (node) => {
        delete node.additionalProperties;
      }),
    );
  for (const name of (schema.required as string[] | undefined) ?? []) {
    edits.push(
      here(`${name} made optional`, (node) => {
        node.required = (node.required as string[]).filter((entry) => entry !== name);
      }),
    );
  }
  for (const [name, property] of Object.entries((schema.properties as Record<string, JsonSchema>) ?? {})) {
    edits.push(...editsOf(property, [...at, 'properties', name]));
  }
  if (schema.items) edits.push(...editsOf(schema.items as JsonSchema, [...at, 'items']));
  return edits;
}

let contract: ContractDocument;
beforeAll(async () => {
  contract = await bundledContract();
});

it.each(Object.keys(componentSchemas))('every one-constraint edit of %s in the spec alone is caught', (name) => {
  const zod = componentSchemas[name as keyof typeof componentSchemas] as z.ZodType;
  const original = contract.schemas[name] as JsonSchema;
  const edits = editsOf(original);
  expect(edits.length).toBeGreaterThan(2);
  const missed = edits
    .filter((edit) => {
      const edited = structuredClone(original);
      edit.apply(edited);
      return findDrift({ zod, spec: edited, seed: 7, runs: 50 }).length === 0;
    })
    .map((edit) => edit.label);
  expect(missed).toEqual([]);
});
