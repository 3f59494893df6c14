/**
 * docs/assumptions.md is complete and true to its own form: every sentence of the contract that
 * leaves something "not shown" or "not finalized" is mapped to an entry, every entry has each
 * of its parts, and every "A-N" the code cites is an entry of the register.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { packageRoot } from '../../src/openapi/package-root.js';

const root = packageRoot();
const register = readFileSync(join(root, 'docs/assumptions.md'), 'utf8');
const contract = readFileSync(join(root, 'docs/contract/http-contract.md'), 'utf8');

/** Entry number → its section text. */
const entries = new Map(
  [...register.matchAll(/^## A-(\d+) .*$/gm)].map((match, index, all) => [
    Number(match[1]),
    register.slice(match.index, all[index + 1]?.index ?? register.indexOf('## Contract "not shown"')),
  ]),
);

/** The sentences of the contract that leave a gap open. */
const gaps = [...contract.matchAll(/[^.\n]*(?:not shown|not finalized)[^.\n]*\./g)].map((match) => match[0].replace(/^-\s*/, '').trim());

/** The map table's rows: the quoted contract text (with … for elisions) and the entries it names. */
const mapRows = register
  .slice(register.indexOf('## Contract "not shown"'))
  .split('\n')
  .filter((line) => line.startsWith('| ') && line.includes('"'))
  .map((line) => ({
    quote: line.match(/"([^"]+)"/)?.[1] ?? '',
    entries: [...line.matchAll(/\[A-(\d+)\]/g)].map((match) => Number(match[1])),
  }));

it('finds the gaps of the contract it is meant to cover (the parser itself works)', () => {
  expect(gaps.length).toBeGreaterThanOrEqual(13);
  expect(gaps).toContain('Rate limits and quotas: not shown.');
  expect(entries.size).toBeGreaterThanOrEqual(20);
});

it.each(gaps)('maps the contract sentence %j to an entry that exists', (sentence) => {
  // A row quotes the sentence whole (perhaps with the next), or with elisions marked by "…".
  const quotes = (quote: string) => quote.includes(sentence) || quote.split('…').every((piece) => sentence.includes(piece.trim()));
  const row = mapRows.find((candidate) => candidate.quote && quotes(candidate.quote));
  expect(row, `no row of the map table quotes: ${sentence}`).toBeDefined();
  expect(row?.entries.length).toBeGreaterThan(0);
  for (const entry of row?.entries ?? []) expect(entries.has(entry), `A-${entry} is not an entry`).toBe(true);
});

it.each([...entries.keys()])('entry A-%i states the contract, the decision, why, the mock and the runner', (number) => {
  const text = entries.get(number) ?? '';
  for (const part of ['**Contract says**', '**Decision**', '**Why**', '**Mock**', '**Conformance runner**']) {
    expect(text, `A-${number} lacks ${part}`).toContain(part);
  }
});

it('lists every entry in its table of contents, with the runner treatment', () => {
  const contents = register.slice(register.indexOf('## Contents'), register.indexOf('\n---\n'));
  for (const number of entries.keys())
    expect(contents).toMatch(new RegExp(`\\| \\[A-${number}\\]\\(#a-${number}-[^)]+\\) \\| [^|]+ \\| [^|]+ \\|`));
});

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

it('has an entry for every "docs/assumptions.md A-N" that code and docs cite', () => {
  const sources = [...filesUnder(join(root, 'src')), ...filesUnder(join(root, 'docs'))].filter((file) => /\.(ts|md)$/.test(file));
  const cited = new Set<number>();
  for (const file of sources) {
    for (const match of readFileSync(file, 'utf8').matchAll(/\bA-(\d+)\b/g)) cited.add(Number(match[1]));
  }
  expect(cited.size).toBeGreaterThan(5);
  for (const number of cited) expect(entries.has(number), `A-${number} is cited but is not an entry`).toBe(true);
});
