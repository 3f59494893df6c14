/**
 * The evolution corpus (test/fixtures/evolution/corpus.ts): every pair classified as written
 * down, on both axes, with the rules that say why.
 */
import { beforeAll, expect, it } from 'vitest';
import { diffDocuments } from '../../src/evolution/index.js';
import { loadBundledDocument } from '../../src/openapi/bundled-document.js';
import { bundledSpecPath } from '../../src/openapi/package-root.js';
import { corpus, type EvolutionPair } from '../fixtures/evolution/corpus.js';

let spec: Record<string, any>;
beforeAll(async () => {
  spec = (await loadBundledDocument({ source: bundledSpecPath() })).document;
});

function diffPair(pair: EvolutionPair) {
  const before = structuredClone(spec);
  pair.base?.(before);
  const after = structuredClone(before);
  pair.edit(after);
  return diffDocuments({ old: { document: before, source: 'old' }, new: { document: after, source: 'new' } });
}

it('holds at least 45 pairs, each with a reason', () => {
  expect(corpus.length).toBeGreaterThanOrEqual(45);
  for (const pair of corpus) expect(pair.why.length, pair.name).toBeGreaterThan(10);
});

it.each(corpus.map((pair) => [pair.name, pair] as const))('%s', (_name, pair) => {
  const report = diffPair(pair);
  const rules = [...new Set(report.changes.map((change) => change.rule))].sort();
  expect(rules).toEqual([...pair.expect.rules].sort());
  expect({
    clients: report.changes.some((change) => change.breaks.clients),
    servers: report.changes.some((change) => change.breaks.servers),
  }).toEqual({ clients: pair.expect.clients, servers: pair.expect.servers });
  for (const change of report.changes) {
    expect(change.location.pointer).toMatch(/^#\//);
    expect(change.message.length).toBeGreaterThan(20);
  }
});
