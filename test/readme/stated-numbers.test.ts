/**
 * Numbers the documents state about the code are the code's: the check count, the runtime
 * dependencies, the mock's defaults. Figures that change with every release (package size,
 * file count, packages installed) are not stated in the README or ARCHITECTURE.md at all;
 * measured figures live in docs/performance.md and docs/reliability.md, with how to rerun them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { mockDefaults } from '../../src/cli/mock-options.js';
import { checks } from '../../src/conformance/index.js';
import { rules } from '../../src/evolution/rules/registry.js';
import { packageRoot } from '../../src/openapi/package-root.js';
import { corpus } from '../fixtures/evolution/corpus.js';

const root = packageRoot();
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const manifest = JSON.parse(read('package.json'));
/** The documents that describe the code (the measurement logs are dated records, not claims). */
const documents = [
  'README.md',
  'ARCHITECTURE.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md') && !['performance.md', 'reliability.md'].includes(name))
    .map((name) => `docs/${name}`),
];
const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const numberOf = (text: string) => (/^\d+$/.test(text) ? Number(text) : words.indexOf(text.toLowerCase()));

it('states the number of conformance checks as the registry has it, wherever it is stated', () => {
  for (const document of documents) {
    for (const match of read(document).matchAll(/(?<![-\w])(\d+|[A-Za-z]+) (?:conformance )?checks\b/g)) {
      const count = numberOf(match[1]!);
      if (count < 0) continue;
      expect(count, `${document}: '${match[0]}'`).toBe(checks.length);
    }
  }
});

it('states the number of runtime dependencies as package.json has it, and ARCHITECTURE.md says why for each', () => {
  const dependencies = Object.keys(manifest.dependencies).sort();
  for (const document of documents) {
    for (const match of read(document).matchAll(/\b(\d+|[A-Za-z]+) runtime dependencies\b/g)) {
      expect(numberOf(match[1]!), `${document}: '${match[0]}'`).toBe(dependencies.length);
    }
  }
  const architecture = read('ARCHITECTURE.md');
  const table = architecture.slice(architecture.indexOf('**Runtime dependencies**'), architecture.indexOf('## Conventions'));
  const listed = [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]!).sort();
  expect(listed).toEqual(dependencies);
});

it('states no package size, file count or install size in the README or ARCHITECTURE.md', () => {
  for (const document of ['README.md', 'ARCHITECTURE.md']) {
    expect(read(document), document).not.toMatch(/\d+ ?(?:kB|MB) packed|\d+ files\b|\d+ (?:dev )?packages\b/);
  }
});

it('states the mock’s default address as the command has it', () => {
  const readme = read('README.md');
  expect(readme).toContain(`http://${mockDefaults.host}:${mockDefaults.port}`);
  for (const match of readme.matchAll(/(?<!redis:\/\/)(?:localhost:(\d+)|127\.0\.0\.1:(\d+))/g)) {
    const port = Number(match[1] ?? match[2]);
    // 4011 and 4012 are the replicas of the shared-store example; 8080 a server under test.
    if (![4011, 4012, 8080].includes(port)) expect(port, match[0]).toBe(mockDefaults.port);
  }
});

it('states the number of diff rules and of corpus pairs as the registry and the corpus have them', () => {
  for (const document of documents) {
    const text = read(document);
    for (const match of text.matchAll(/\((?:[^()]*, )?(\d+) rules\)/g))
      expect(Number(match[1]), `${document}: '${match[0]}'`).toBe(rules.length);
    for (const match of text.matchAll(/(\d+) classified edits|holds (\d+) pairs|\| corpus \| (\d+) \|/g)) {
      expect(Number(match[1] ?? match[2] ?? match[3]), `${document}: '${match[0]}'`).toBe(corpus.length);
    }
  }
});
