/**
 * One option table per command (src/cli/options.ts): the parser, --help, the config file and
 * docs/cli.md all come from it, so what one accepts the others name, and a mistyped option
 * gets "did you mean" on every command.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { configSchema } from '../../src/cli/config-file.js';
import { commands, main } from '../../src/cli/main.js';
import { mockOptions } from '../../src/cli/mock-options.js';
import { type OptionTable, optionsMarkdown } from '../../src/cli/options.js';
import { checks } from '../../src/conformance/index.js';

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

/** Every command's tables, loaded as the dispatcher loads them. */
async function tables(): Promise<[string, string, OptionTable][]> {
  const loaded = await Promise.all(commands.map((entry) => entry.load()));
  return loaded.flatMap((command) =>
    Object.entries(command.optionTables).map(([line, table]) => [command.name, line, table] as [string, string, OptionTable]),
  );
}

it("answers 'mock --prot 4010' with exit 2 and names --port", async () => {
  const result = await run('mock', '--prot', '4010');
  expect(result.code).toBe(2);
  expect(result.stderr).toBe(
    "evidence-harness: mock: Unknown option '--prot'. Did you mean '--port'? See 'evidence-harness mock --help'.\n",
  );
});

it('suggests the nearest option on every command, and nothing for a word near none', async () => {
  for (const [command, line, table] of await tables()) {
    const args = line.split(' ').slice(1);
    for (const name of Object.keys(table)) {
      // A slip: the last two letters swapped (unless that makes another option's name).
      const typo = `${name.slice(0, -2)}${name.at(-1)}${name.at(-2)}`;
      if (typo === name || typo in table) continue;
      const result = await run(command, ...args, `--${typo}`);
      expect(result.code, `${line} --${typo}`).toBe(2);
      expect(result.stderr, `${line} --${typo}`).toContain(`Did you mean '--${name}'?`);
    }
    const far = await run(command, ...args, '--zzzzzzzzzz');
    expect(far.stderr).not.toContain('Did you mean');
  }
});

it('lists every option of every table in its --help', async () => {
  for (const [command, , table] of await tables()) {
    const { stdout } = await run(command, '--help');
    for (const name of Object.keys(table)) expect(stdout, `${command} --${name}`).toMatch(new RegExp(`--${name}\\b`));
  }
});

it('takes every mock option but --config in the config file, with the bounds the command line has', () => {
  const mock = configSchema.shape.mock.unwrap();
  expect(Object.keys(mock.shape).sort()).toEqual(
    Object.keys(mockOptions)
      .filter((name) => name !== 'config')
      .sort(),
  );
  // What the command line accepts, the file accepts, and the other way round.
  for (const size of ['64MIB', '64mib', '64MiB', '500kB', '2 MB', 1048576])
    expect(configSchema.safeParse({ mock: { 'max-job-bytes': size } }).success, String(size)).toBe(true);
  for (const size of ['64XB', '1.5MiB', 12])
    expect(configSchema.safeParse({ mock: { 'max-job-bytes': size } }).success, String(size)).toBe(false);
  expect(configSchema.safeParse({ mock: { port: 65535 } }).success).toBe(true);
  expect(configSchema.safeParse({ mock: { port: 65536 } }).success).toBe(false);
});

/** docs/cli.md as the tables make it; UPDATE_DOCS=1 rewrites the file. */
async function cliReference(): Promise<string> {
  const sections: string[] = [];
  for (const [command, line, table] of await tables()) {
    const summary = commands.find((entry) => entry.name === command)!.summary;
    sections.push(
      `## evidence-harness ${line}`,
      '',
      ...(line === command ? [`${summary[0]!.toUpperCase()}${summary.slice(1)}.`, ''] : []),
      optionsMarkdown(table, { configKeys: command === 'mock' }),
      '',
    );
    if (line === 'conformance') {
      sections.push(
        `### The ${checks.length} checks`,
        '',
        '| Check | Counts | What it checks |',
        '| --- | --- | --- |',
        ...checks.map(
          (check) =>
            `| \`${check.name}\` | ${check.severity === 'required' ? 'required' : `advisory (${check.assumption ?? 'docs/assumptions.md'})`} | ${check.description.replace(/\|/g, '\\|')} |`,
        ),
        '',
      );
    }
  }
  return [
    '# Command-line reference',
    '',
    '<!-- Generated from the option tables in src/cli/ by test/cli/options.test.ts: edit the tables,',
    '     then run `UPDATE_DOCS=1 npx vitest run test/cli/options.test.ts`. -->',
    '',
    'Every option of every command, as `evidence-harness <command> --help` prints it. The `mock`',
    "command's options can also be written in `evidence-harness.config.json` or `.yaml`, under the",
    'flag\'s name (the "Config file" column); flags given on the command line win.',
    '',
    ...sections,
  ].join('\n');
}

it('keeps docs/cli.md equal to the option tables (UPDATE_DOCS=1 rewrites it)', async () => {
  const path = join(process.cwd(), 'docs/cli.md');
  const expected = await cliReference();
  if (process.env.UPDATE_DOCS === '1') writeFileSync(path, expected);
  expect(readFileSync(path, 'utf8')).toBe(expected);
});
