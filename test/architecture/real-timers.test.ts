/**
 * The guard of issue 43: no test of the behaviour project (what `npm test` runs) and no file
 * beside them under test/ waits on the wall clock for less than 10 s without saying why. A test
 * that needs time controls it (vitest's fake timers, the engine's VirtualClock, an injected clock,
 * an awaited event); where real time is the point it says so with `// real-time: <why>` and, when
 * load could change its outcome, lives in the slow project (docs/development.md, A-40).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { packageRoot } from '../../src/openapi/package-root.js';
import { slow } from '../../vitest.config.js';
import { realTimerFindings } from '../support/real-timers.js';

const root = packageRoot();
const fixture = 'test/fixtures/real-timers/racing.ts';

/** Files this guard does not read yet, each with why (none now). */
const notYetRead = new Map<string, string>();

/** A glob of vitest.config.ts's `slow` list as a regular expression (`**` any folders, `*` one name). */
function globPattern(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replaceAll('**/', '(?:.*/)?').replace(/(?<![.)])\*/g, '[^/]*')}$`);
}
const slowFiles = slow.map(globPattern);

function filesUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** The behaviour project's test files and every TypeScript file beside them under test/ (servers, fixtures, helpers). */
function behaviourFiles(): string[] {
  const tests = [...filesUnder('src'), ...filesUnder('mocks')].filter((file) => file.endsWith('.test.ts'));
  return (
    [...tests, ...filesUnder('test')]
      .filter((file) => !slowFiles.some((pattern) => pattern.test(file)))
      // Playwright's own suite (not vitest), and the slow project's own folders of helpers.
      .filter((file) => !/^test\/(playwright-sessions|hardening|package|bench)\//.test(file))
      // The fixture races on purpose; the scanner's own patterns name setTimeout.
      .filter((file) => file !== fixture && file !== 'test/support/real-timers.ts' && !notYetRead.has(file))
      .sort()
  );
}

it('finds every way the fixture races the wall clock, and takes a marked reason or a wait of 10 s', () => {
  const findings = realTimerFindings(readFileSync(join(root, fixture), 'utf8'));
  expect(findings.map((finding) => [finding.line, finding.why])).toEqual([
    [6, 'setTimeout with a delay under 10000 ms'],
    [7, 'setInterval with a delay under 10000 ms'],
    [9, 'sleep (timers/promises) under 10000 ms'],
    [10, 'vi.waitFor at its 1 s default'],
    [11, 'a timeout under 10000 ms'],
    [12, 'timeoutMs under 10000 ms handed to the code under test'],
    [13, '--timeout under 10000 ms handed to the code under test'],
  ]);
});

it('reads the slow list of vitest.config.ts as vitest does', () => {
  expect(slowFiles.some((pattern) => pattern.test('test/hardening/load.test.ts'))).toBe(true);
  expect(slowFiles.some((pattern) => pattern.test('test/conformance/transport-real-time.test.ts'))).toBe(true);
  expect(slowFiles.some((pattern) => pattern.test('test/conformance/transport.test.ts'))).toBe(false);
  expect(behaviourFiles()).toContain('test/conformance/transport.test.ts');
  expect(behaviourFiles()).not.toContain('test/conformance/transport-real-time.test.ts');
});

it('no behaviour-project test waits on the wall clock for less than 10 s without a marked reason', () => {
  const unmarked = behaviourFiles().flatMap((file) =>
    realTimerFindings(readFileSync(join(root, file), 'utf8')).map((finding) => `${file}:${finding.line}: ${finding.why}: ${finding.text}`),
  );
  expect(unmarked, 'control time (fake timers, a VirtualClock, an awaited event) or mark the line: // real-time: <why>').toEqual([]);
});
