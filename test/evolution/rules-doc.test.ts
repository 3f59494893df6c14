/** docs/evolution.md describes every rule of the registry, by its name. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { rules } from '../../src/evolution/index.js';
import { packageRoot } from '../../src/openapi/package-root.js';

it('names every rule once in docs/evolution.md, and every rule name is unique kebab-case', () => {
  const doc = readFileSync(join(packageRoot(), 'docs', 'evolution.md'), 'utf8');
  const names = rules.map((rule) => rule.name);
  expect(new Set(names).size).toBe(names.length);
  for (const name of names) {
    expect(name).toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(doc, name).toContain(`| \`${name}\` |`);
  }
});
