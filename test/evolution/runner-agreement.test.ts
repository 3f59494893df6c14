/**
 * `diff`'s servers axis says what the project's own runner does (A-46): for each rule a server
 * can be built for, a pair of documents; the mock engine built from OLD is a server
 * implementing OLD, and `conformance --spec NEW` is run against it in-process. The diff says
 * "breaks servers" exactly when that run fails, and the engine built from NEW passes the same
 * run (so the failure is the change's, not the runner's or the engine's).
 *
 * Rules left out, and why: parameter-became-required (the engine requires Idempotency-Key by
 * its own code, A-16, so no engine implements an OLD where it was optional; the runner's
 * missing-header probe is what makes the rule break servers for a header).
 * Also left out: optional- and required-parameter-added (the engine does not act on a header
 * the document adds, so the engine built from NEW fails NEW's run: it is no server of NEW);
 * default-value-changed (the runner ignores `default`: which value a server fills in for an
 * absent property is not in its answer to a create, so no run tells the two apart). And: a server built from a document is the engine, which answers the
 * contract's four operations with behaviour of its own (responses, headers and statuses come
 * from code, not from the document), so response-side and document-level rules have no
 * server that implements OLD here; docs/evolution.md says how each of them is classified.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { contractFromDocument } from '../../src/engine/engine-contract.js';
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import { diffDocuments } from '../../src/evolution/index.js';
import { loadBundledDocument } from '../../src/openapi/bundled-document.js';
import { loadContract } from '../../src/openapi/document.js';
import { bundledSpecPath } from '../../src/openapi/package-root.js';

type Doc = Record<string, any>;
const request = (doc: Doc) => doc.components.schemas.EvaluationRequest;
/** The document's own example of a createEvaluation body, which the runner sends as it is. */
const example = (doc: Doc) => doc.paths['/v0/evaluations'].post.requestBody.content['application/json'].examples.paymentConformance.value;

interface RulePair {
  readonly rule: string;
  /** The operation the runner checks (default createEvaluation). */
  readonly operation?: string;
  readonly base?: (doc: Doc) => void;
  readonly edit: (doc: Doc) => void;
}

const pairs: readonly RulePair[] = [
  { rule: 'limit-tightened', edit: (doc) => (request(doc).properties.operationId.maxLength = 64) },
  { rule: 'limit-tightened', edit: (doc) => (request(doc).properties.operationId.minLength = 8) },
  { rule: 'limit-tightened', edit: (doc) => (request(doc).properties.evidence.maxItems = 32) },
  { rule: 'limit-tightened', edit: (doc) => (doc.components.parameters.IdempotencyKey.schema.maxLength = 64) },
  { rule: 'limit-loosened', edit: (doc) => (request(doc).properties.operationId.maxLength = 256) },
  { rule: 'pattern-changed', edit: (doc) => (request(doc).properties.instructionDigest.pattern = '^[0-9a-fA-F]{64}$') },
  {
    rule: 'pattern-changed',
    base: (doc) => (request(doc).properties.instructionDigest.pattern = '^[0-9a-fA-F]{64}$'),
    edit: (doc) => (request(doc).properties.instructionDigest.pattern = '^[0-9a-f]{64}$'),
  },
  {
    rule: 'pattern-added',
    base: (doc) => (request(doc).properties.priority = { type: 'string' }),
    edit: (doc) => (request(doc).properties.priority.pattern = '^[a-z]{4}$'),
  },
  { rule: 'pattern-removed', edit: (doc) => delete request(doc).properties.instructionDigest.pattern },
  {
    rule: 'enum-added',
    base: (doc) => (request(doc).properties.priority = { type: 'string' }),
    edit: (doc) => (request(doc).properties.priority.enum = ['low', 'high']),
  },
  {
    rule: 'enum-removed',
    base: (doc) => (request(doc).properties.priority = { type: 'string', enum: ['low', 'high'] }),
    edit: (doc) => delete request(doc).properties.priority.enum,
  },
  {
    rule: 'enum-value-removed',
    base: (doc) => (request(doc).properties.priority = { type: 'string', enum: ['low', 'normal', 'high'] }),
    edit: (doc) => (request(doc).properties.priority.enum = ['low', 'normal']),
  },
  {
    rule: 'enum-value-added',
    base: (doc) => (request(doc).properties.priority = { type: 'string', enum: ['low', 'normal'] }),
    edit: (doc) => (request(doc).properties.priority.enum = ['low', 'normal', 'high']),
  },
  {
    rule: 'type-changed',
    base: (doc) => (request(doc).properties.priority = { type: ['string', 'null'], maxLength: 8 }),
    edit: (doc) => (request(doc).properties.priority.type = 'string'),
  },
  {
    rule: 'type-changed',
    base: (doc) => (request(doc).properties.priority = { type: 'string', maxLength: 8 }),
    edit: (doc) => (request(doc).properties.priority.type = ['string', 'null']),
  },
  { rule: 'property-added', edit: (doc) => (request(doc).properties.priority = { type: 'string', maxLength: 8 }) },
  {
    rule: 'required-property-added',
    edit: (doc) => {
      request(doc).properties.priority = { type: 'string', maxLength: 8 };
      request(doc).required.push('priority');
      example(doc).priority = 'high';
    },
  },
  {
    rule: 'property-removed',
    base: (doc) => (request(doc).properties.priority = { type: 'string', maxLength: 8 }),
    edit: (doc) => delete request(doc).properties.priority,
  },
  {
    rule: 'property-became-required',
    edit: (doc) => {
      doc.components.schemas.EvidenceReference.required.push('digest');
      for (const item of example(doc).evidence) item.digest ??= '0'.repeat(64);
    },
  },
  {
    rule: 'property-became-optional',
    edit: (doc) => (request(doc).required = request(doc).required.filter((name: string) => name !== 'policyDigest')),
  },
  {
    rule: 'additional-properties-closed',
    base: (doc) => delete request(doc).additionalProperties,
    edit: (doc) => (request(doc).additionalProperties = false),
  },
  { rule: 'additional-properties-opened', edit: (doc) => delete request(doc).additionalProperties },
  {
    rule: 'format-added',
    base: (doc) => (request(doc).properties.note = { type: 'string', maxLength: 200 }),
    edit: (doc) => (request(doc).properties.note.format = 'uri'),
  },
  { rule: 'format-removed', edit: (doc) => delete doc.components.schemas.EvidenceReference.properties.uri.format },
  { rule: 'limit-loosened', edit: (doc) => (request(doc).properties.evidence.maxItems = 128) },
  {
    rule: 'limit-tightened',
    operation: 'getJob',
    edit: (doc) => (doc.paths['/v0/jobs/{jobId}'].get.parameters[0].schema.maxLength = 64),
  },
  {
    rule: 'limit-loosened',
    operation: 'getJob',
    edit: (doc) => (doc.paths['/v0/jobs/{jobId}'].get.parameters[0].schema.maxLength = 256),
  },
];

let spec: Doc;
beforeAll(async () => {
  spec = (await loadBundledDocument({ source: bundledSpecPath() })).document;
});

const folder = mkdtempSync(join(tmpdir(), 'eh-runner-agreement-'));
let written = 0;

async function serverFor(document: Doc) {
  written += 1;
  const file = join(folder, `openapi-${written}.json`);
  writeFileSync(file, JSON.stringify(document));
  const contract = await loadContract({ source: file });
  const engine = createMockEngine({
    spec: contractFromDocument(contract.document),
    clock: new VirtualClock({ start: Date.UTC(2026, 10, 25) }),
  });
  return { file, engine };
}

/** The runner's failures of `conformance --spec NEW` against the engine built from `document`. */
async function runnerFailures(options: { serverDocument: Doc; specFile: string; operation: string }): Promise<string[]> {
  const { engine } = await serverFor(options.serverDocument);
  const report = await runConformance({
    baseUrl: 'http://mock.test',
    spec: options.specFile,
    seed: 7,
    replayWaitMs: 0,
    operations: { includeOperations: [options.operation] },
    fetch: (request) => engine.handle(request),
  });
  return report.checks.flatMap((check) => check.failures.map((failure) => `${check.name}: ${failure.input} → ${failure.received}`));
}

it.each(pairs.map((pair, index) => [`${pair.rule} #${index + 1}`, pair] as const))(
  '%s: breaks servers exactly when the runner fails a server implementing OLD',
  async (_name, pair) => {
    const before = structuredClone(spec);
    pair.base?.(before);
    const after = structuredClone(before);
    pair.edit(after);
    const report = diffDocuments({ old: { document: before, source: 'old' }, new: { document: after, source: 'new' } });
    expect(report.changes.map((change) => change.rule)).toContain(pair.rule);
    const { file: newFile } = await serverFor(after);
    const newServer = await runnerFailures({ serverDocument: after, specFile: newFile, operation: pair.operation ?? 'createEvaluation' });
    expect(newServer, 'the engine built from NEW passes conformance --spec NEW').toEqual([]);
    const oldServer = await runnerFailures({ serverDocument: before, specFile: newFile, operation: pair.operation ?? 'createEvaluation' });
    const breaksServers = report.changes.some((change) => change.breaks.servers);
    expect({ breaksServers, runnerFailsOld: oldServer.length > 0, failures: oldServer.slice(0, 3) }).toMatchObject({
      breaksServers: oldServer.length > 0,
    });
  },
  180_000,
);
