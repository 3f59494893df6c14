/*
 * `npm run dredd`: Dredd 14 against the mock server, as a second opinion on the contract.
 *
 * Dredd cannot read OpenAPI 3.1, so this writes a Swagger 2.0 view of spec/openapi.yaml,
 * generated from the spec each run (src/conformance/dredd/swagger2-view.ts), to a temporary
 * folder; starts the mock on 127.0.0.1 with a free port; runs Dredd with hooks.cjs; and stops
 * the mock. Needs the compiled dist/ (the npm script builds it first). Extra arguments go to
 * Dredd, e.g. `npm run dredd -- --reporter junit --output dredd.xml`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const { startMockServer } = await import(join(root, 'dist', 'src', 'server', 'mock-server.js'));
const { loadContract } = await import(join(root, 'dist', 'src', 'openapi', 'document.js'));
const { swagger2View } = await import(join(root, 'dist', 'src', 'conformance', 'dredd', 'swagger2-view.js'));

const server = await startMockServer({ port: 0 });
const folder = mkdtempSync(join(tmpdir(), 'eh-dredd-'));
let code = 1;
try {
  const view = swagger2View(await loadContract(), { host: new URL(server.url).host });
  const file = join(folder, 'swagger2-view.json');
  writeFileSync(file, JSON.stringify(view.document, null, 2));
  process.stderr.write(`evidence-harness: dredd: mock on ${server.url}; Swagger 2 view in ${file}\n`);
  for (const entry of view.dropped) process.stderr.write(`evidence-harness: dredd: not checked by Dredd: ${entry}\n`);
  const dredd = join(root, 'node_modules', 'dredd', 'bin', 'dredd');
  const child = spawn(
    process.execPath,
    [dredd, file, server.url, '--hookfiles', join(here, 'hooks.cjs'), '--language', 'nodejs', ...process.argv.slice(2)],
    {
      stdio: 'inherit',
    },
  );
  code = await new Promise((resolve) => child.on('exit', (exitCode) => resolve(exitCode ?? 1)));
} finally {
  await server.close();
  rmSync(folder, { recursive: true, force: true });
}
process.exitCode = code;
