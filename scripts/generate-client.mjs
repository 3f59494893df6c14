#!/usr/bin/env node
/**
 * Generates src/client/schema.ts, the typed client's types, from spec/openapi.yaml with
 * openapi-typescript, then formats it with the project's Biome settings so `biome check` and a
 * fresh generation agree byte for byte.
 *
 *   node scripts/generate-client.mjs                  write src/client/schema.ts (npm run generate:client)
 *   node scripts/generate-client.mjs --check          exit 1 when the committed file differs from a fresh generation
 *   node scripts/generate-client.mjs --check --file F compare F instead (used by the test that proves the check can fail)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = 'src/client/schema.ts';

const header = `/**
 * @module client/schema
 * The contract's types, generated from spec/openapi.yaml by openapi-typescript. Do not edit:
 * run \`npm run generate:client\` after changing the spec (test/client/schema-fresh.test.ts fails
 * until you do).
 */
`;

/** The text src/client/schema.ts must have for the spec as it is now. */
async function generate() {
  const ast = await openapiTS(pathToFileURL(join(root, 'spec', 'openapi.yaml')));
  const raw = header + astToString(ast);
  // Biome reads the project's biome.jsonc from cwd; the stdin path only names the language and the file's place.
  return execFileSync(join(root, 'node_modules', '.bin', 'biome'), ['format', `--stdin-file-path=${target}`], {
    cwd: root,
    input: raw,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** The first line where two texts differ, for a message a person can act on. */
function firstDifference(expected, actual) {
  const expectedLines = expected.split('\n');
  const actualLines = actual.split('\n');
  for (let index = 0; index < Math.max(expectedLines.length, actualLines.length); index += 1) {
    if (expectedLines[index] !== actualLines[index]) {
      return `line ${index + 1}\n  generated: ${JSON.stringify(expectedLines[index] ?? '<end of file>')}\n  committed: ${JSON.stringify(actualLines[index] ?? '<end of file>')}`;
    }
  }
  return 'no line differs';
}

const args = process.argv.slice(2);
const fileIndex = args.indexOf('--file');
const file = fileIndex >= 0 ? args[fileIndex + 1] : join(root, target);
const fresh = await generate();

if (args.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {
    committed = '';
  }
  if (committed !== fresh) {
    process.stderr.write(
      `${relative(root, file) || file} is not what spec/openapi.yaml generates (first difference at ${firstDifference(fresh, committed)}).\nRun: npm run generate:client\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`${relative(root, file)} is up to date with spec/openapi.yaml\n`);
} else {
  writeFileSync(file, fresh);
  process.stdout.write(`wrote ${relative(root, file)}\n`);
}
