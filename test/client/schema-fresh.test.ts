/**
 * The committed src/client/schema.ts is what spec/openapi.yaml generates today, so the typed
 * client cannot drift from the contract; and the check does fail on a file that differs.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { packageRoot } from '../../src/openapi/package-root.js';

const root = packageRoot();
const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'schema-fresh-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function check(file?: string) {
  const args = [join(root, 'scripts', 'generate-client.mjs'), '--check', ...(file ? ['--file', file] : [])];
  return run(process.execPath, args, { cwd: root }).then(
    ({ stdout }) => ({ code: 0, output: stdout }),
    (error: { code: number; stderr: string }) => ({ code: error.code, output: error.stderr }),
  );
}

it('src/client/schema.ts equals a fresh generation from spec/openapi.yaml', async () => {
  const result = await check();
  expect(result.output).toContain('up to date');
  expect(result.code).toBe(0);
});

it('the check fails, naming the line and the fix, when the file differs', async () => {
  const committed = readFileSync(join(root, 'src', 'client', 'schema.ts'), 'utf8');
  const edited = join(scratch, 'schema.ts');
  writeFileSync(edited, committed.replace("'QUEUED' | 'RUNNING'", "'QUEUED' | 'STARTED' | 'RUNNING'"));
  const result = await check(edited);
  expect(result.code).toBe(1);
  expect(result.output).toContain('STARTED');
  expect(result.output).toContain('npm run generate:client');
});
