/**
 * @module bench/children/first-call
 * What a test file pays before its first answer, in a fresh process: import the package's MSW
 * entry as a user does (`evidence-harness/msw/node`, resolved through package.json "exports",
 * so the built files a user gets), `setupMockService`, `listen()`, and the first request a
 * user's first test makes (the README's: POST /v0/evaluations, answered 202); or the same with
 * MSW's own `setupServer` and one static handler answering the same request. Prints the
 * milliseconds from the process's start (performance.timeOrigin) to the answer's body read, and
 * the CPU time the process (all its threads) used by then, as one JSON line. The bench's MSW group (bench/groups/msw.ts) runs it, the kinds in turn.
 *
 * Run: node dist/bench/children/first-call.js engine|unbundled|static
 */
import type * as MockNode from '../../mocks/node.js';

const kind = process.argv[2];
const baseUrl = 'http://localhost:4010';
// A variable, not a literal: tsc would otherwise resolve the package's own name to dist/.
const entry = 'evidence-harness/msw/node';

async function listen(): Promise<{ close(): void }> {
  if (kind === 'engine' || kind === 'unbundled') {
    // 'unbundled': tsc's output of the same entry, which the package shipped before
    // scripts/bundle-lib.mjs, for the bench to show what the bundle saves.
    const { setupMockService } = (await import(kind === 'engine' ? entry : '../../mocks/node.js')) as typeof MockNode;
    const mock = setupMockService({ baseUrl });
    mock.server.listen({ onUnhandledRequest: 'error' });
    return mock.server;
  }
  if (kind !== 'static') throw new TypeError(`first-call: 'engine', 'unbundled' or 'static', got '${kind}'`);
  const [{ HttpResponse, http }, { setupServer }] = await Promise.all([import('msw'), import('msw/node')]);
  const server = setupServer(
    http.post(`${baseUrl}/v0/evaluations`, () =>
      HttpResponse.json({ jobId: 'job_0123456789ABCDEFGHJKMNPQRS', status: 'QUEUED' }, { status: 202 }),
    ),
  );
  server.listen({ onUnhandledRequest: 'error' });
  return server;
}

const server = await listen();
const response = await fetch(`${baseUrl}/v0/evaluations`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'idempotency-key': 'first-call-1' },
  body: JSON.stringify({
    profile: 'svc.payment-conformance/0.1-draft',
    operationId: 'op-2026-0001',
    instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
    policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    evidence: [{ id: 'ev-1', kind: 'issuer_assertion' }],
  }),
});
const body = (await response.json()) as { status?: string };
const ms = performance.now();
const cpu = process.cpuUsage();
server.close();
if (response.status !== 202 || body.status !== 'QUEUED') {
  process.stderr.write(`first-call ${kind}: expected 202 QUEUED, got ${response.status} ${JSON.stringify(body)}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ kind, ms, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
