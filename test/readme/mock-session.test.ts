/**
 * The mock session of docs/mock.md, run as written: the block marked `readme-test: mock-session` is
 * read from docs/mock.md, its `npx evidence-harness mock …` line starts the built CLI (on a free
 * port instead of 4010), and every curl command must print exactly the `# → …` line below it.
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { executablePath, packageRoot } from '../../src/openapi/package-root.js';

const root = packageRoot();
const readme = readFileSync(join(root, 'docs', 'mock.md'), 'utf8');
const marker = '<!-- readme-test: mock-session';
const block = readme.slice(readme.indexOf(marker)).split('```sh\n')[1]?.split('\n```')[0] ?? '';

interface Step {
  readonly command: string;
  readonly expected: string;
}

/** Commands (joined across trailing backslashes) each followed by its `# → output` line. */
function stepsOf(text: string): { start: string; steps: Step[] } {
  const lines = text.replace(/\\\n\s*/g, '').split('\n');
  const start = lines.find((line) => line.startsWith('npx evidence-harness mock')) ?? '';
  const steps: Step[] = [];
  for (const [index, line] of lines.entries()) {
    if (!line.startsWith('curl ')) continue;
    const next = lines[index + 1] ?? '';
    steps.push({ command: line, expected: next.startsWith('# → ') ? next.slice(4) : '(no expected output line)' });
  }
  return { start, steps };
}

const { start, steps } = stepsOf(block);
const child = spawn(
  process.execPath,
  [
    executablePath(),
    ...start
      .replace(/^npx evidence-harness /, '')
      .replace(/ &$/, '')
      .split(' '),
    '--port',
    '0',
  ],
  { stdio: 'pipe' },
);
const listening = new Promise<string>((resolve, reject) => {
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    const match = /listening on http:\/\/(127\.0\.0\.1:\d+)/.exec(output);
    if (match) resolve(match[1]!);
  });
  child.on('exit', (code) => reject(new Error(`the mock exited with ${code}: ${output}`)));
});
afterAll(() => {
  child.kill('SIGTERM');
});

it('finds the session in docs/mock.md: a mock started with a seed and curl commands with their output', () => {
  expect(start).toBe('npx evidence-harness mock --seed 1 &');
  expect(steps.length).toBeGreaterThanOrEqual(6);
});

it('prints what docs/mock.md says for every command of the session, in order', async () => {
  const address = await listening;
  for (const step of steps) {
    const command = step.command.replaceAll('localhost:4010', address);
    const { stdout } = await promisify(execFile)('bash', ['-c', command]);
    expect(stdout.trim(), step.command).toBe(step.expected);
  }
});
