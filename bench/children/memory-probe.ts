/**
 * @module bench/children/memory-probe
 * The mock server (engine and node:http, as the CLI starts them) in a process of its own,
 * reporting RSS after a full GC (run with --expose-gc) over IPC: idle at start, loaded when
 * the parent sends 'measure'. Forked by bench/groups/memory.ts.
 */
import { startMockServer } from '../../src/server/index.js';

export interface MemoryFigure {
  readonly rssMb: number;
  readonly heapUsedMb: number;
}

const collect = (globalThis as { gc?: () => void }).gc;

async function settled(): Promise<MemoryFigure> {
  // Two collections a turn apart: the first can leave finalisation work only the second frees.
  for (let round = 0; round < 2; round += 1) {
    collect?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const usage = process.memoryUsage();
  return { rssMb: usage.rss / 2 ** 20, heapUsedMb: usage.heapUsed / 2 ** 20 };
}

const server = await startMockServer({ port: 0 });
// One request of each kind first, so idle includes the code a served request loads.
const headers = { 'content-type': 'application/json', 'idempotency-key': 'memory-probe-warm-up' };
const evaluationBody = JSON.stringify({
  profile: 'svc.payment-conformance/0.1-draft',
  operationId: 'op-2026-0001',
  instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
  policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
  evidence: [{ id: 'ev-1', kind: 'issuer_assertion', uri: 'https://evidence.example/assertions/ev-1' }],
});
await (await fetch(`${server.url}/v0/evaluations`, { method: 'POST', headers, body: evaluationBody })).arrayBuffer();
await (await fetch(`${server.url}/health`)).arrayBuffer();
process.send?.({ url: server.url, idle: await settled() });
process.on('message', async () => {
  const loaded = await settled();
  process.send?.({ loaded, stored: (await server.engine.control.listJobs()).length });
});
process.on('disconnect', () => process.exit(0));
