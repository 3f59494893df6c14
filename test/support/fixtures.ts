/**
 * Request bodies for tests, built from the spec's own example so they stay valid when the
 * contract changes.
 */
import type { EvaluationRequest } from '../../src/contract/index.js';

export function evaluationRequest(overrides: Partial<EvaluationRequest> = {}): EvaluationRequest {
  return {
    profile: 'svc.payment-conformance/0.1-draft',
    operationId: 'op-2026-0001',
    instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
    policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    evidence: [
      { id: 'ev-1', kind: 'issuer_assertion', uri: 'https://evidence.example/assertions/ev-1' },
      { id: 'ev-2', kind: 'rpc_observation', network: 'mainnet' },
    ],
    ...overrides,
  };
}

let keyCounter = 0;
/** A fresh Idempotency-Key per call. */
export function newKey(): string {
  keyCounter += 1;
  return `test-key-${keyCounter}`;
}

export function jsonPost(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

/**
 * A streamed POST of `megabytes` MiB of spaces (a JSON body far over any limit), for the tests
 * that send oversized bodies; `sentMegabytes()` says how much the client had handed over.
 */
export function streamedSpaces(options: { megabytes: number; headers: Record<string, string> }): {
  init: RequestInit;
  sentMegabytes(): number;
} {
  const chunk = new Uint8Array(1024 * 1024).fill(0x20);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= options.megabytes) return controller.close();
      sent += 1;
      controller.enqueue(chunk);
    },
  });
  return {
    init: { method: 'POST', headers: options.headers, body, duplex: 'half' } as RequestInit,
    sentMegabytes: () => sent,
  };
}
