/**
 * A credential the client sent in a credential header and also put elsewhere (a path, an
 * Idempotency-Key, a body field) is in nothing the mock writes (issue 40: the pact scrubbed it,
 * the request log and coverage.json printed it): the built CLI's log lines, its coverage report
 * and pact at exit, and the control API's journal, coverage and pact.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';

const spawnCli = cliChildrenKilledAfterEach();
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const secret = 'sk_live_7Qm2xV9pLk4';

it('takes a token seen in Authorization out of the log, the journal, the coverage report and the pact', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'eh-scrub-'));
  folders.push(cwd);
  const mock = spawnCli(['mock', '--port', '0', '--coverage-report', 'json=coverage.json', '--pact-out', 'web.json'], { cwd });
  const [, url] = await mock.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  const authorization = { authorization: `Bearer ${secret}` };
  const created = await fetch(
    `${url}/v0/evaluations`,
    jsonPost(evaluationRequest({ operationId: `op-${secret}` }), { ...authorization, 'idempotency-key': secret }),
  );
  expect(created.status).toBe(202);
  // The same key with another body: a conflict, and a client finding naming the request.
  const conflict = await fetch(`${url}/v0/evaluations`, jsonPost(evaluationRequest(), { ...authorization, 'idempotency-key': secret }));
  expect(conflict.status).toBe(409);
  expect((await fetch(`${url}/v0/jobs/${secret}`, { headers: authorization })).status).toBe(404);
  // A later call without the header: the value is still known.
  expect((await fetch(`${url}/v0/jobs/job-${secret}`)).status).toBe(404);

  const exports: Record<string, string> = {};
  for (const name of ['journal', 'coverage', 'pact', `jobs/${secret}`]) {
    const answer = await fetch(`${url}/__mock/${name}`);
    exports[name] = await answer.text();
    expect(answer.headers.get('content-type')).toMatch(/json/);
    expect(() => JSON.parse(exports[name]!)).not.toThrow();
  }
  // What the journal shows in its place.
  const journal = JSON.parse(exports.journal!) as { entries: { path: string; idempotencyKey?: string }[] };
  expect(journal.entries.map((entry) => entry.path)).toContain('/v0/jobs/[REDACTED]');
  expect(journal.entries[0]!.idempotencyKey).toBe('[REDACTED]');

  mock.child.kill('SIGTERM');
  expect(await mock.exit).toBe(0);
  const written = {
    log: mock.stdout() + mock.stderr(),
    coverage: readFileSync(join(cwd, 'coverage.json'), 'utf8'),
    pact: readFileSync(join(cwd, 'web.json'), 'utf8'),
  };
  // The log lines are there, with the path scrubbed.
  expect(written.log).toMatch(/ GET \/v0\/jobs\/\[REDACTED\] 404 /);
  expect(written.log).toMatch(/ GET \/v0\/jobs\/job-\[REDACTED\] 404 /);
  expect(JSON.parse(written.coverage).covered).toBeGreaterThan(0);
  for (const [name, text] of Object.entries({ ...exports, ...written })) expect(text, name).not.toContain(secret);
});
