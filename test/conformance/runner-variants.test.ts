/**
 * The runner against successor versions of the contract a user brings with --spec: a request
 * schema with a pattern of another shape than `^[class]{n}$`, a `default`, a type list. For
 * each, the mock engine built from the variant passes `conformance --spec VARIANT` (no false
 * failure), and the engine built from the variant minus the constraint — a server that ignores
 * it — fails the same run, because the runner sends a value that breaks it. A pattern the
 * generators cannot build a value for leaves the checks that needed one not judged, with the
 * reason, and the run goes on.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { contractFromDocument } from '../../src/engine/engine-contract.js';
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import { loadBundledDocument } from '../../src/openapi/bundled-document.js';
import { loadContract } from '../../src/openapi/document.js';
import { bundledSpecPath } from '../../src/openapi/package-root.js';

type Doc = Record<string, any>;
const request = (doc: Doc) => doc.components.schemas.EvaluationRequest;
const example = (doc: Doc) => doc.paths['/v0/evaluations'].post.requestBody.content['application/json'].examples.paymentConformance.value;

let spec: Doc;
beforeAll(async () => {
  spec = (await loadBundledDocument({ source: bundledSpecPath() })).document;
});

const folder = mkdtempSync(join(tmpdir(), 'eh-runner-variants-'));
let written = 0;
async function write(document: Doc): Promise<string> {
  written += 1;
  const file = join(folder, `openapi-${written}.json`);
  writeFileSync(file, JSON.stringify(document));
  return file;
}

/** `conformance --spec specFile` (createEvaluation only) against the engine built from `serverDocument`. */
async function run(options: { serverDocument: Doc; specFile: string }) {
  const contract = await loadContract({ source: await write(options.serverDocument) });
  const engine = createMockEngine({
    spec: contractFromDocument(contract.document),
    clock: new VirtualClock({ start: Date.UTC(2026, 10, 25) }),
  });
  const report = await runConformance({
    baseUrl: 'http://mock.test',
    spec: options.specFile,
    seed: 7,
    replayWaitMs: 0,
    // The mock tells callers apart by their credential, so the caller-isolation checks run too.
    secondCallerHeaders: { Authorization: 'Bearer second-caller' },
    operations: { includeOperations: ['createEvaluation'] },
    fetch: (call) => engine.handle(call),
  });
  const failures = report.checks.flatMap((check) =>
    check.failures.map((failure) => `${check.name}: ${failure.input} → ${failure.received}`),
  );
  return { report, failures };
}

interface Variant {
  readonly name: string;
  /** The variant: the document the runner is given, and the mock that must pass it is built from. */
  readonly variant: (doc: Doc) => void;
  /** The constraint taken out again: a server built from this ignores it. */
  readonly ignoring: (doc: Doc) => void;
  /** What the failing run's failures must mention (the property the runner broke). */
  readonly failureMentions: RegExp;
}

const hex = (doc: Doc) => request(doc).properties.instructionDigest;
const variants: readonly Variant[] = [
  {
    name: 'a pattern with a literal prefix',
    variant: (doc) => {
      hex(doc).pattern = '^sha256:[0-9a-f]{64}$';
      delete hex(doc).maxLength;
      example(doc).instructionDigest = `sha256:${example(doc).instructionDigest}`;
    },
    ignoring: (doc) => delete hex(doc).pattern,
    failureMentions: /instructionDigest.*pattern/,
  },
  {
    name: 'a pattern with an alternation and a counted repeat',
    variant: (doc) => (request(doc).properties.priority = { type: 'string', pattern: '^(low|high)-[0-9]{2,4}$' }),
    ignoring: (doc) => delete request(doc).properties.priority.pattern,
    failureMentions: /priority.*pattern/,
  },
  {
    name: 'a pattern with open repeats and length bounds',
    variant: (doc) => (request(doc).properties.priority = { type: 'string', pattern: '^[a-z]+-[0-9]*$', minLength: 3, maxLength: 20 }),
    ignoring: (doc) => delete request(doc).properties.priority.pattern,
    failureMentions: /priority.*pattern/,
  },
  {
    name: 'a default',
    variant: (doc) => (request(doc).properties.priority = { type: 'string', enum: ['low', 'high'], default: 'low' }),
    ignoring: (doc) => delete request(doc).properties.priority.enum,
    failureMentions: /priority.*enum/,
  },
  {
    name: 'a const',
    variant: (doc) => (request(doc).properties.priority = { type: 'string', const: 'low' }),
    ignoring: (doc) => delete request(doc).properties.priority.const,
    failureMentions: /priority.*enum/,
  },
  {
    name: 'a type list',
    variant: (doc) => (request(doc).properties.priority = { type: ['string', 'null'], maxLength: 8 }),
    ignoring: (doc) => delete request(doc).properties.priority.maxLength,
    failureMentions: /priority.*maxLength/,
  },
];

it.each(variants.map((variant) => [variant.name, variant] as const))(
  '%s: the mock built from the variant passes, a server ignoring the constraint fails',
  async (_name, variant) => {
    const document = structuredClone(spec);
    variant.variant(document);
    const specFile = await write(document);
    const own = await run({ serverDocument: document, specFile });
    expect(own.failures, 'the engine built from the variant passes conformance --spec VARIANT').toEqual([]);
    expect(own.report.incomplete).toEqual([]);
    expect(own.report.verdict).toBe('passed');
    expect(own.report.exitCode).toBe(0);
    const careless = structuredClone(document);
    variant.ignoring(careless);
    const other = await run({ serverDocument: careless, specFile });
    expect(other.report.verdict).toBe('failed');
    expect(other.report.checks.find((check) => check.name === 'negative_data_rejection')?.status).toBe('failed');
    expect(other.failures.join('\n')).toMatch(variant.failureMentions);
  },
  180_000,
);

it('a pattern no value is built for leaves the checks that needed one not judged, and the run goes on', async () => {
  const document = structuredClone(spec);
  // \p{…} is outside the shapes the generators build for; the mock matches it (RE2 reads \p{Lu}).
  request(document).properties.priority = { type: 'string', pattern: '^\\p{Lu}{3}$' };
  const { report, failures } = await run({ serverDocument: document, specFile: await write(document) });
  expect(failures).toEqual([]);
  expect(report.verdict).toBe('incomplete');
  expect(report.exitCode).toBe(3);
  const notJudged = report.checks.filter((check) => check.status === 'skipped' && check.note?.includes('not judged'));
  expect(notJudged.map((check) => check.name)).toContain('negative_data_rejection');
  expect(notJudged[0]?.note).toContain('pattern ^\\p{Lu}{3}$: it uses the escape \\p');
  expect(report.incomplete.join('\n')).toMatch(/not judged: no value is built for pattern/);
  // Checks with no need of the value still ran.
  expect(report.checks.filter((check) => check.status === 'passed').length).toBeGreaterThan(0);
}, 180_000);

it('a format other than uri is read as an annotation: the run starts, and the mock built from it is never failed', async () => {
  const document = structuredClone(spec);
  // OpenAPI 3.1 lets a tool that does not know a format fall back to the type alone.
  request(document).properties.contactEmail = { type: 'string', format: 'email', maxLength: 64 };
  request(document).properties.sequence = { type: 'string', format: 'int64', maxLength: 20 };
  const { report, failures } = await run({ serverDocument: document, specFile: await write(document) });
  expect(failures).toEqual([]);
  expect(report.exitCode === 0 || report.exitCode === 3).toBe(true);
  expect(report.checks.filter((check) => check.status === 'passed').length).toBeGreaterThan(0);
}, 180_000);
