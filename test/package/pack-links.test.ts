/**
 * The docs travel with the package (docs/assumptions.md A-64): every link of README.md (the
 * page npm shows) resolves to a file inside `npm pack`'s output, and the register the runner's
 * `A-nn` references point at is in it too. Reads `npm pack --dry-run --json`, so nothing is
 * built or written.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { packageRoot } from '../../src/openapi/package-root.js';

const root = packageRoot();

function packedFiles(): Set<string> {
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 60_000,
  });
  const [pack] = JSON.parse(output) as [{ files: { path: string }[] }];
  return new Set(pack.files.map((file) => file.path));
}

/** The relative targets of a Markdown file's links and images, without their #fragments. */
function relativeLinks(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!);
  return [
    ...new Set(
      targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#')).map((target) => target.split('#')[0]!),
    ),
  ];
}

it('ships every file README.md links to, and the assumptions register the runner cites', () => {
  const files = packedFiles();
  const links = relativeLinks(readFileSync(join(root, 'README.md'), 'utf8'));
  expect(links.length).toBeGreaterThan(10);
  expect(links.filter((link) => !files.has(link.replace(/^\.\//, '')))).toEqual([]);
  expect(files.has('docs/assumptions.md')).toBe(true);
  // The runner's reports say "docs/assumptions.md A-nn": the entries they cite are in the shipped file.
  const register = readFileSync(join(root, 'docs/assumptions.md'), 'utf8');
  const cited = new Set<string>();
  for (const file of ['src/conformance', 'src/proxy'].flatMap((folder) =>
    execFileSync('git', ['ls-files', folder], { cwd: root, encoding: 'utf8' }).split('\n'),
  )) {
    if (!file.endsWith('.ts')) continue;
    for (const match of readFileSync(join(root, file), 'utf8').matchAll(/\bA-(\d+)\b/g)) cited.add(match[1]!);
  }
  expect(cited.size).toBeGreaterThan(3);
  for (const number of cited) expect(register, `A-${number}`).toMatch(new RegExp(`^## A-${number} `, 'm'));
});
