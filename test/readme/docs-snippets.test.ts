/**
 * The examples in README.md and docs/ are the ones the tests run: each region between
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

it.each([
  ['README.md', 'msw-node.test.ts', 'msw-node'],
  ['docs/frontend-tests.md', 'msw-node.test.ts', 'msw-node'],
  ['docs/frontend-tests.md', 'msw-node-clock.test.ts', 'msw-node-clock'],
  ['docs/frontend-tests.md', 'fake-timers.test.ts', 'fake-timers'],
  ['docs/frontend-tests.md', 'coverage-helper.test.ts', 'coverage-helper'],
  ['docs/client.md', 'typed-client.test.ts', 'typed-client'],
  ['docs/pact.md', 'pact-msw.test.ts', 'pact-msw'],
])('%s shows the example of test/readme/%s exactly as it runs', (document, file, name) => {
  expect(readFileSync(join(root, document), 'utf8')).toContain(region(file, name));
});
