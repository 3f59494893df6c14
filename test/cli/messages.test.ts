/**
 * The CLI's error messages, word for word (issue 13): each names the file or flag, says what was
 * wrong and what to do, and exits 2. Run in-process through main(), as the executable runs it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { scratchFolder } from '../package/scratch.js';
import { fifosReleasedAfterEach } from '../support/fifo.js';
import { runMain } from '../support/run-main.js';

const scratch = scratchFolder('eh-messages-');
afterAll(() => scratch.remove());

const run = runMain;
const makeFifo = fifosReleasedAfterEach();

function file(name: string, text: string): string {
  const path = join(scratch.path, name);
  writeFileSync(path, text);
  return path;
}

it('--scenario with a missing file: says the file is not found, where it looked, and what to pass instead', async () => {
  expect(await run('mock', '--scenario', './missing.yaml')).toEqual({
    code: 2,
    stdout: '',
    stderr: `evidence-harness: mock: --scenario: file not found: ./missing.yaml (resolved to ${resolve('missing.yaml')}); pass a shipped scenario's name or the path of a .json, .yaml or .yml scenario file.\n`,
  });
});

it('--scenario with a folder: says it is a folder', async () => {
  const folder = join(scratch.path, 'folder.json');
  mkdirSync(folder);
  expect((await run('mock', '--scenario', folder)).stderr).toBe(
    `evidence-harness: mock: --scenario: ${folder} (resolved to ${folder}) is a folder, not a file; pass a shipped scenario's name or the path of a .json, .yaml or .yml scenario file.\n`,
  );
});

it('--scenario with malformed YAML: keeps the yaml package’s line and column, with a code frame of that line alone (A-27)', async () => {
  const path = file('bad.yaml', 'name: x\nfaults:\n  - a: [1\n  b: 2\n');
  const result = await run('mock', '--scenario', path);
  expect(result.code).toBe(2);
  expect(result.stderr).toBe(
    `evidence-harness: mock: --scenario: ${path} is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 4, column 3:

      b: 2
      ^

Fix the file, or pass a shipped scenario's name instead.
`,
  );
});

it('--scenario with malformed JSON: gives the line and column with a code frame where V8 gives a position', async () => {
  const path = file('bad.json', '{\n  "name": "x",\n  "faults": [1 2]\n}\n');
  const result = await run('mock', '--scenario', path);
  expect(result.code).toBe(2);
  expect(result.stderr).toBe(
    `evidence-harness: mock: --scenario: ${path} is not valid JSON: Expected ',' or ']' after array element at line 3, column 16:

      "faults": [1 2]
                   ^

Fix the file, or pass a shipped scenario's name instead.
`,
  );
});

it('--scenario with a file the schema refuses: names the file and the path inside it, and where the format is', async () => {
  const path = file('teapot.json', JSON.stringify({ name: 'teapot', faults: [{ status: 418 }] }));
  const result = await run('mock', '--scenario', path);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(
    new RegExp(
      `^evidence-harness: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: invalid scenario:\n {2}faults\\.0\\.status \\(line 1, column \\d+\\): `,
    ),
  );
  expect(result.stderr).toMatch(
    /\nFix the file: scenarios\/scenario\.schema\.json in this package is its JSON Schema, and 'evidence-harness mock --help' lists the shipped scenarios\.\n$/,
  );
});

it('--config with malformed YAML: the line and column, and no more than 40 characters of the file (A-27)', async () => {
  const secret = 'SECRET-7f3a9c1e-aaaa-bbbb-cccc-dddd-eeee-ffff-0123456789';
  const path = file('leaky.config.yaml', `mock:\n  port: ${secret}: ${secret}\n`);
  const result = await run('mock', '--config', path);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(`${path} is not valid YAML: Nested mappings are not allowed in compact mappings at line 2, column 9:`);
  expect(result.stderr).toContain(`\n\n      port: ${secret.slice(0, 31)}…\n            ^\n`);
  expect(result.stderr).not.toContain(secret);
});

it.skipIf(process.platform === 'win32')('--spec with a FIFO: refused as no regular file, not read (A-27)', async () => {
  const fifo = join(scratch.path, 'spec.yaml');
  makeFifo(fifo);
  expect((await run('spec', '--spec', fifo)).stderr).toBe(
    `evidence-harness: spec: --spec: ${fifo} (resolved to ${fifo}) is a FIFO (named pipe), not a regular file; pass the path or URL of an OpenAPI 3.1 document, or leave --spec out to read the bundled spec/openapi.yaml.\n`,
  );
});

it('--port -1: the range the option takes, not the argument parser’s wording', async () => {
  expect(await run('mock', '--port', '-1')).toEqual({
    code: 2,
    stdout: '',
    stderr: "evidence-harness: mock: --port must be an integer from 0 to 65535, got '-1'. See 'evidence-harness mock --help'.\n",
  });
  expect((await run('mock', '--seed', '-5')).stderr).toBe(
    "evidence-harness: mock: --seed must be an integer from 0 to 4294967295, got '-5'. See 'evidence-harness mock --help'.\n",
  );
});

it('--control-token "": refused, with what to pass instead', async () => {
  for (const token of ['', '  ']) {
    expect(await run('mock', '--port', '0', '--control-token', token)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "evidence-harness: mock: --control-token is empty. Pass a token (any string you choose, sent back as the X-Mock-Token header), or leave --control-token out: a token is then generated when --host is not loopback. See 'evidence-harness mock --help'.\n",
    });
  }
});

it('--spec with a missing file: not called an invalid OpenAPI document', async () => {
  expect(await run('spec', '--spec', './nope.yaml')).toEqual({
    code: 2,
    stdout: '',
    stderr: `evidence-harness: spec: --spec: file not found: ./nope.yaml (resolved to ${resolve('nope.yaml')}); pass the path or URL of an OpenAPI 3.1 document, or leave --spec out to read the bundled spec/openapi.yaml.\n`,
  });
  expect((await run('spec', '--spec', '')).stderr).toBe(
    'evidence-harness: spec: --spec: the value is empty; pass the path or URL of an OpenAPI 3.1 document, or leave --spec out to read the bundled spec/openapi.yaml.\n',
  );
});

it('conformance --spec with a missing file: named before anything is sent', async () => {
  expect(await run('conformance', '--base-url', 'http://127.0.0.1:9', '--spec', './nope.yaml')).toEqual({
    code: 2,
    stdout: '',
    stderr: `evidence-harness: conformance: --spec: file not found: ./nope.yaml (resolved to ${resolve('nope.yaml')}); pass the path or URL of an OpenAPI 3.1 document, or leave --spec out to read the bundled spec/openapi.yaml. See 'evidence-harness conformance --help'.\n`,
  });
});

it('--spec with an invalid document: says where it is wrong and what to do', async () => {
  const path = file('broken.yaml', 'openapi: 3.1.0\ninfo:\n  title: x\npaths: {}\n');
  expect(await run('spec', '--spec', path)).toEqual({
    code: 2,
    stdout: '',
    stderr: `evidence-harness: spec: invalid OpenAPI document: ${path}: Swagger schema validation failed: #/info must have required property 'version'. Fix the document (the message says where) and run the command again.\n`,
  });
});
