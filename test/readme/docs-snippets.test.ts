/**
 * The examples in README.md and docs/client.md are the ones the tests run: each region between
 * `// readme:start NAME` and `// readme:end` in test/readme/*.test.ts that a document shows must
 * appear in it character for character, so editing one without the other fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { packageRoot } from '../../src/openapi/package-root.js';

const root = packageRoot();

function region(file: string, name: string): string {
  const source = readFileSync(join(root, 'test', 'readme', file), 'utf8');
  const match = new RegExp(`// readme:start ${name}\\n([\\s\\S]*?)// readme:end`).exec(source);
  if (!match) throw new Error(`test/readme/${file} has no region '${name}'`);
  return match[1]!.trim();
}

it('docs/client.md shows the typed-client example exactly as test/readme/typed-client.test.ts runs it', () => {
  const doc = readFileSync(join(root, 'docs', 'client.md'), 'utf8');
  expect(doc).toContain(region('typed-client.test.ts', 'typed-client'));
});

it.each([
  ['msw-node.test.ts', 'msw-node'],
  ['msw-node-clock.test.ts', 'msw-node-clock'],
  ['typed-client.test.ts', 'typed-client'],
  ['coverage-helper.test.ts', 'coverage-helper'],
])('README.md shows the example of test/readme/%s exactly as it runs', (file, name) => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  expect(readme).toContain(region(file, name));
});
