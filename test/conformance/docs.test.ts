/**
 * docs/conformance.md lists every check of the registry and every server of the fault zoo;
 * the tables between the markers are generated from the code, so they cannot drift. Run with
 * UPDATE_DOCS=1 to rewrite them after adding a check or a fault.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { checks } from '../../src/conformance/checks/registry.js';
import { packageRoot } from '../../src/openapi/package-root.js';
import { faults } from '../fixtures/fault-zoo/faults.js';

const file = join(packageRoot(), 'docs', 'conformance.md');

const escapePipes = (text: string) => text.replaceAll('|', '\\|');

/** 'A-1' → 'a-1-lengths-count-code-points', the GitHub anchor of its heading in docs/assumptions.md. */
const anchors = new Map(
  [...readFileSync(join(packageRoot(), 'docs', 'assumptions.md'), 'utf8').matchAll(/^## (A-\d+) (.+)$/gm)].map((match) => [
    match[1]!,
    `${match[1]} ${match[2]}`
      .toLowerCase()
      .replace(/[^a-z0-9 -]/g, '')
      .replaceAll(' ', '-'),
  ]),
);

const tables = {
  checks: [
    '| Check | Kind | Rule |',
    '| --- | --- | --- |',
    ...checks.map(
      (check) =>
        `| \`${check.name}\` | ${check.severity}${check.assumption ? ` ([${check.assumption}](assumptions.md#${anchors.get(check.assumption)}))` : ''} | ${escapePipes(check.description)} |`,
    ),
  ].join('\n'),
  faults: [
    '| Fault server | Rule it breaks | Check that catches it |',
    '| --- | --- | --- |',
    ...faults.map((fault) => `| \`${fault.name}\` | ${escapePipes(fault.rule)} | \`${fault.check}\` |`),
  ].join('\n'),
};

function section(text: string, name: keyof typeof tables): { start: number; end: number } {
  const start = text.indexOf(`<!-- ${name}:start -->`);
  const end = text.indexOf(`<!-- ${name}:end -->`);
  expect(start, `docs/conformance.md lacks <!-- ${name}:start -->`).toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(start);
  return { start: start + `<!-- ${name}:start -->`.length, end };
}

it.each(Object.keys(tables) as (keyof typeof tables)[])('lists every %s as the code defines them', (name) => {
  let text = readFileSync(file, 'utf8');
  const { start, end } = section(text, name);
  if (process.env.UPDATE_DOCS === '1') {
    text = `${text.slice(0, start)}\n${tables[name]}\n${text.slice(end)}`;
    writeFileSync(file, text);
  }
  const current = readFileSync(file, 'utf8');
  const bounds = section(current, name);
  expect(current.slice(bounds.start, bounds.end).trim()).toBe(tables[name]);
});
