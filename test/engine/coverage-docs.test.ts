/**
 * docs/coverage.md lists every behaviour of the engine's catalogue, and docs/client-findings.md
 * has a section for every rule of the registry, so neither document can drift from the code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { behaviours, clientRules } from '../../src/engine/index.js';
import { packageRoot } from '../../src/openapi/package-root.js';

const doc = (name: string) => readFileSync(join(packageRoot(), 'docs', name), 'utf8');

it('docs/coverage.md has a row for every behaviour id, and no id the engine does not have', () => {
  const text = doc('coverage.md');
  const table = text.slice(text.indexOf('## The behaviours'), text.indexOf('## Worked example'));
  const rows = [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]);
  expect(rows).toEqual(behaviours.map((behaviour) => behaviour.id));
});

it('docs/client-findings.md has one section per rule of the registry, in its order', () => {
  const sections = [...doc('client-findings.md').matchAll(/^## ([a-z_]+)$/gm)].map((match) => match[1]);
  expect(sections).toEqual(clientRules.map((rule) => rule.name));
});
