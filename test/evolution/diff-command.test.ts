/**
 * `evidence-harness diff` as a person runs it: formats, --output, --fail-on, exit codes, and
 * hostile documents refused with a clear exit 2, never a stack trace.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { loadBundledDocument } from '../../src/openapi/bundled-document.js';
import { bundledSpecPath } from '../../src/openapi/package-root.js';
import { runMain } from '../support/run-main.js';

const spec = bundledSpecPath();
let folder: string;
let next: string;

const document = (schema: string) =>
  `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/a":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}},"responses":{"200":{"description":"ok"}}}}},"components":{"schemas":${schema}}}`;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'diff-command-'));
  const doc = structuredClone((await loadBundledDocument({ source: spec })).document);
  doc.components.schemas.Job.properties.status.enum.push('CANCELLED');
  doc.paths['/v0/jobs/{jobId}'].delete = { operationId: 'deleteJob', responses: { '204': { description: 'Deleted.' } } };
  next = join(folder, 'next.json');
  writeFileSync(next, JSON.stringify(doc));
});

it('reports no change for identical documents, and --fail-on any passes', async () => {
  const result = await runMain('diff', spec, spec, '--fail-on', 'any');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('No changes.');
});

it('writes JSON with a changes array, each with location, rule, message and breaks', async () => {
  const result = await runMain('diff', spec, next, '--format', 'json');
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout);
  expect(report.changes).toContainEqual(
    expect.objectContaining({
      rule: 'enum-value-added',
      location: {
        document: 'new',
        pointer: '#/paths/~1v0~1jobs~1{jobId}/get/responses/200/content/application~1json/schema/properties/status/enum',
      },
      definedAt: '#/components/schemas/Job/properties/status/enum',
      breaks: { clients: true, servers: false },
    }),
  );
  expect(report.changes).toContainEqual(expect.objectContaining({ rule: 'operation-added', breaks: { clients: false, servers: true } }));
});

it('exits 1 for --fail-on clients and --fail-on servers when such a change exists', async () => {
  expect((await runMain('diff', spec, next, '--fail-on', 'clients')).code).toBe(1);
  expect((await runMain('diff', spec, next, '--fail-on', 'servers')).code).toBe(1);
});

it('writes Markdown and JUnit to --output, saying so on stdout', async () => {
  const markdown = join(folder, 'out', 'diff.md');
  const result = await runMain('diff', spec, next, '--format', 'markdown', '--output', markdown);
  expect(result.stdout).toMatch(/^wrote .*diff\.md: 3 changes, 2 break clients, 1 breaks servers, 0 compatible\.\n$/);
  expect(readFileSync(markdown, 'utf8')).toMatch(/#### Breaks clients \(2\)[\s\S]*#### Breaks servers only \(1\)/);
  const junit = join(folder, 'diff.xml');
  await runMain('diff', spec, next, '--format', 'junit', '--output', junit, '--fail-on', 'clients');
  const xml = readFileSync(junit, 'utf8');
  expect(xml).toContain('<testsuites name="evidence-harness diff" tests="3" failures="2">');
  expect(xml).toContain('<failure type="enum-value-added" message="breaks clients">');
});

it.each([
  [['diff', spec], /takes two documents, OLD and NEW \(got 1\)/],
  [['diff', spec, spec, '--format', 'html'], /--format must be one of text, json, markdown, junit/],
  [['diff', spec, spec, '--fail-on', 'everyone'], /--fail-on must be one of clients, servers, any/],
  [['diff', spec, 'missing.yaml'], /NEW: file not found: missing\.yaml/],
])('refuses a bad command line with exit 2: %j', async (argv, message) => {
  const result = await runMain(...argv);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
});

it.each([
  ['an invalid document', '{"openapi":"3.1.0","paths":{}}', /OLD is not a valid OpenAPI 3\.1 document/],
  [
    'an OpenAPI 3.0 document',
    '{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{}}',
    /expected an OpenAPI 3\.1 document, found 3\.0\.3/,
  ],
  [
    'a schema nested 90 levels',
    document(`{"A":${'{"type":"object","properties":{"x":'.repeat(90)}{}${'}}'.repeat(90)}}`),
    /nests more than 64 levels/,
  ],
  ['a schema nested 3000 levels', document(`{"A":${'{"properties":{"x":'.repeat(3000)}{}${'}}'.repeat(3000)}}`), /nest|maxDepth/],
  [
    'a YAML alias bomb',
    `${['openapi: 3.1.0', "info: {title: t, version: '1'}", 'paths: {}', 'components:', '  schemas:', '    L0: &l0 {type: string}'].join('\n')}\n${Array.from({ length: 30 }, (_, i) => `    L${i + 1}: &l${i + 1} {type: object, properties: {a: *l${i}, b: *l${i}}}`).join('\n')}\n`,
    /YAML aliases expand beyond/,
  ],
])('refuses %s with exit 2 and a clear message, no stack trace', async (_name, text, message) => {
  const file = join(folder, `hostile-${Math.random().toString(36).slice(2)}.${text.startsWith('{') ? 'json' : 'yaml'}`);
  writeFileSync(file, text);
  const result = await runMain('diff', file, file);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at /);
});

it('compares recursive $refs (A → B → A) and ends', async () => {
  const file = join(folder, 'cycle.json');
  writeFileSync(
    file,
    document('{"A":{"$ref":"#/components/schemas/B"},"B":{"type":"object","properties":{"next":{"$ref":"#/components/schemas/A"}}}}'),
  );
  const result = await runMain('diff', file, file, '--format', 'json');
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout).changes).toEqual([]);
});

it('refuses two documents too large to compare as soon as NEW is read, naming the budget (A-35)', async () => {
  // Each holds 1.2 million values (300 enums of 4,000): either alone is read, both pass the budget.
  const big = (prefix: string) => {
    const schemas: Record<string, unknown> = {};
    for (let index = 0; index < 300; index += 1)
      schemas[`${prefix}${index}`] = { type: 'integer', enum: Array.from({ length: 4000 }, (_, value) => value * 7 + index) };
    return JSON.stringify({ openapi: '3.1.0', info: { title: prefix, version: '1' }, paths: {}, components: { schemas } });
  };
  const older = join(folder, 'big-old.json');
  const newer = join(folder, 'big-new.json');
  writeFileSync(older, big('a'));
  writeFileSync(newer, big('b'));
  const result = await runMain('diff', older, newer);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(
    /the documents cannot be compared: OLD and NEW together hold more than the 2000000 values .*reached reading NEW/,
  );
  expect(result.stdout).toBe('');
});
