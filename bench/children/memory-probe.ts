/**
 * @module bench/children/memory-probe
 * The mock's memory, in a process of its own: starts the mock server (engine and node:http,
 * as the CLI does) and reports RSS idle; the bench process then stores jobs by sending
 * createEvaluation requests over HTTP, each with a new Idempotency-Key, and asks for RSS
 * again. Each figure follows a full GC (the process runs with --expose-gc), so it counts what
 * is held, not garbage waiting to be collected. Talks to its parent over the IPC channel.
 *
 * Run by bench/groups/memory.ts: fork('dist/bench/children/memory-probe.js', { execArgv: ['--expose-gc'] })
 */
import { startMockServer } from '../../src/server/index.js';

export interface MemoryFigure {
  readonly rssMb: number;
  readonly heapUsedMb: number;
}

export type ProbeMessage =
  | { readonly kind: 'ready'; readonly url: string; readonly gcExposed: boolean; readonly idle: MemoryFigure }
  | { readonly kind: 'measured'; readonly loaded: MemoryFigure; readonly stored: number };

const collect = (globalThis as { gc?: () => void }).gc;

async function settled(): Promise<MemoryFigure> {
  // Two collections with a turn of the event loop between them: the first can leave
  // finalisation work that only the second frees.
  for (let round = 0; round < 2; round += 1) {
    collect?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const usage = process.memoryUsage();
  return { rssMb: usage.rss / 2 ** 20, heapUsedMb: usage.heapUsed / 2 ** 20 };
}

function send(message: ProbeMessage): void {
  process.send?.(message);
}

const server = await startMockServer({ port: 0 });
// One request of each kind first, so the idle figure includes the code a served request loads.
const created = await fetch(`${server.url}/v0/evaluations`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'idempotency-key': 'memory-probe-warm-up' },
  body: JSON.stringify({
    profile: 'svc.payment-conformance/0.1-draft',
    operationId: 'op-2026-0001',
    instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
    policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    evidence: [{ id: 'ev-1', kind: 'issuer_assertion', uri: 'https://evidence.example/assertions/ev-1' }],
  }),
});
await created.arrayBuffer();
await (await fetch(`${server.url}/health`)).arrayBuffer();
send({ kind: 'ready', url: server.url, gcExposed: collect !== undefined, idle: await settled() });

process.on('message', (message: { kind?: string }) => {
  if (message.kind === 'measure') {
    void settled().then(async (loaded) => {
      const stored = (await server.engine.control.listJobs()).length;
      send({ kind: 'measured', loaded, stored });
    });
  } else if (message.kind === 'exit') {
    void server.close({ graceMs: 100 }).then(() => process.exit(0));
  }
});
// The parent is gone: nobody will ask for a measurement.
process.on('disconnect', () => process.exit(0));
