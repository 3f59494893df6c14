/**
 * A second opinion: openapi-diff (Atlassian, npm `openapi-diff`) run on the evolution corpus,
 * its verdict set beside ours. It reports and does not judge: where the two differ,
 * docs/evolution.md says why. openapi-diff reads OpenAPI 3.0 only, so each pair is given to it
 * as a copy declaring 3.0.3 (see the doc for what that hides). Its one verdict, "breaking",
 * is compared with our clients axis, which is what it means by it (a consumer of OLD breaks).
 *
 * openapi-diff is not a dev dependency: its dependency tree asks for Node 22.19, and `npm ci`
 * on Node 20 would warn (EBADENGINE). Run it on demand:
 *   npm i --no-save openapi-diff@0.24.1 && SECOND_OPINION=1 npx vitest run test/evolution/second-opinion.test.ts
 */
import { beforeAll, expect, it } from 'vitest';
import { diffDocuments } from '../../src/evolution/index.js';
import { loadBundledDocument } from '../../src/openapi/bundled-document.js';
import { bundledSpecPath } from '../../src/openapi/package-root.js';
import { corpus } from '../fixtures/evolution/corpus.js';

interface Difference {
  readonly code: string;
  readonly type: string;
}

interface OpenApiDiff {
  diffSpecs(options: Record<string, unknown>): Promise<{
    breakingDifferencesFound: boolean;
    breakingDifferences?: Difference[];
    nonBreakingDifferences: Difference[];
    unclassifiedDifferences: Difference[];
  }>;
}

/** openapi-diff, installed by hand (see above); a name in a variable keeps tsc from looking for it. */
async function openapiDiff(): Promise<OpenApiDiff> {
  const name = 'openapi-diff';
  return ((await import(name)) as { default: OpenApiDiff }).default;
}

let spec: Record<string, any>;
beforeAll(async () => {
  spec = (await loadBundledDocument({ source: bundledSpecPath() })).document;
});

/**
 * The document as OpenAPI 3.0.3, which openapi-diff validates against: the 3.1 forms this spec
 * and the corpus use rewritten (`info.summary` dropped, a schema's `examples` list → `example`,
 * `type: [T, 'null']` → `type: T, nullable: true`, `const` → a one-value enum).
 */
function as303(doc: Record<string, any>): string {
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) out[key] = rewrite(entry);
    if (Array.isArray(out.examples)) {
      out.example = out.examples[0];
      delete out.examples;
    }
    if (Array.isArray(out.type)) {
      const types = out.type.filter((type) => type !== 'null');
      if (types.length < out.type.length) out.nullable = true;
      out.type = types[0];
    }
    if ('const' in out) {
      out.enum = [out.const];
      delete out.const;
    }
    return out;
  };
  const converted = rewrite(doc) as Record<string, any>;
  delete converted.info.summary;
  return JSON.stringify({ ...converted, openapi: '3.0.3' });
}

// 15 s to 2 min on two shared cores, so it runs on request: SECOND_OPINION=1 npx vitest run test/evolution/second-opinion.test.ts
it.skipIf(!process.env.SECOND_OPINION)(
  'runs openapi-diff on every pair of the corpus and reports where it differs',
  async () => {
    const rows: { name: string; ours: boolean; oursServers: boolean; theirs: boolean | 'error'; codes: string }[] = [];
    for (const pair of corpus) {
      const before = structuredClone(spec);
      pair.base?.(before);
      const after = structuredClone(before);
      pair.edit(after);
      const report = diffDocuments({ old: { document: before, source: 'old' }, new: { document: after, source: 'new' } });
      const ours = report.changes.some((change) => change.breaks.clients);
      const oursServers = report.changes.some((change) => change.breaks.servers);
      try {
        const outcome = await (await openapiDiff()).diffSpecs({
          sourceSpec: { content: as303(before), location: 'old.json', format: 'openapi3' },
          destinationSpec: { content: as303(after), location: 'new.json', format: 'openapi3' },
        });
        const differences = [
          ...(outcome.breakingDifferencesFound ? (outcome.breakingDifferences ?? []) : []),
          ...outcome.nonBreakingDifferences,
          ...outcome.unclassifiedDifferences,
        ];
        rows.push({
          name: pair.name,
          ours,
          oursServers,
          theirs: outcome.breakingDifferencesFound,
          codes: [...new Set(differences.map((d) => `${d.code}:${d.type}`))].join(' '),
        });
      } catch (error) {
        rows.push({
          name: pair.name,
          ours,
          oursServers,
          theirs: 'error',
          codes: (error as Error).message.replace(/\s+/g, ' ').slice(0, 300),
        });
      }
    }
    const judged = rows.filter((row) => row.theirs !== 'error');
    const agree = judged.filter((row) => row.theirs === row.ours);
    const lines = [
      `openapi-diff on ${rows.length} pairs: ${judged.length} judged, ${rows.length - judged.length} refused`,
      `agreement with our clients axis: ${agree.length} of ${judged.length}`,
      `both breaking: ${judged.filter((r) => r.ours && r.theirs === true).length}, both not: ${judged.filter((r) => !r.ours && r.theirs === false).length}, only ours: ${judged.filter((r) => r.ours && r.theirs === false).length}, only theirs: ${judged.filter((r) => !r.ours && r.theirs === true).length}`,
      'disagreements (name | ours clients/servers | openapi-diff breaking | its codes):',
      ...rows
        .filter((row) => row.theirs !== row.ours)
        .map((row) => `  ${row.name} | ${row.ours}/${row.oursServers} | ${row.theirs} | ${row.codes}`),
    ];
    console.log(lines.join('\n'));
    expect(judged.length).toBeGreaterThan(corpus.length / 2);
  },
  300_000,
);
