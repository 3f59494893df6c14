/**
 * @module cli/config-file
 * `evidence-harness.config.json` (or `.yaml`/`.yml`): the `mock` command's flags written down
 * once for a project, under the flags' own names, so the file reads like the command line it
 * replaces. Flags given on the command line win over the file. The file is validated by a zod
 * schema derived from the command's option table (mock-options.ts), also published as `evidence-harness.config.schema.json` (editors complete and
 * check it through its `$schema`).
 */
import { existsSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { DocumentSyntaxError, parseDocumentText, withShortQuotes } from '../documents/document-text.js';
import { readRegularFile, UserFileError } from '../documents/regular-file.js';
import { UsageError } from './command.js';
import { nearest } from './did-you-mean.js';
import { configFileNames, mockOptions } from './mock-options.js';
import { configSchemaOf, type OptionSpec, type OptionTable } from './options.js';

export { configFileNames };

const mockConfigOptions = configSchemaOf(mockOptions);

export const configSchema = z
  .object({
    $schema: z.string().optional(),
    mock: mockConfigOptions.optional().describe("options of 'evidence-harness mock', named as its flags"),
  })
  .strict()
  .describe('evidence-harness configuration: each command’s options under the command’s name');

export type ConfigFile = z.infer<typeof configSchema>;

/** The JSON Schema published as evidence-harness.config.schema.json. */
export function publishedConfigSchema(): object {
  return {
    ...z.toJSONSchema(configSchema, { target: 'draft-2020-12', io: 'input' }),
    $id: 'https://evidence-harness.dev/evidence-harness.config.schema.json',
    title: 'evidence-harness configuration',
  };
}

function looksLikePath(value: string): boolean {
  return /[/\\]/.test(value) || /\.(json|ya?ml)$/i.test(value);
}

/** A path in the file resolved against the file's folder, not the working folder. */
function relativeToFile(options: { spec: OptionSpec | undefined; text: string; folder: string }): string {
  const { spec, text, folder } = options;
  const path = spec?.kind === 'string' ? spec.path : undefined;
  const isPath =
    path === 'file' ||
    (path === 'file-or-name' && looksLikePath(text)) ||
    (path === 'file-or-url' && !/^[a-z][a-z\d+.-]*:\/\//i.test(text));
  if (isPath) return isAbsolute(text) ? text : resolve(folder, text);
  // json=FILE: the file, not the format, is relative to the folder.
  const report = path === 'format=file' ? /^([a-z]+)=(.+)$/.exec(text) : null;
  if (report && !isAbsolute(report[2]!)) return `${report[1]}=${resolve(folder, report[2]!)}`;
  return text;
}

/** " Did you mean 'port'?" after zod's message for a mistyped option name. */
function unknownKeyHint(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'unrecognized_keys' || issue.path[0] !== 'mock') return '';
  const hints = issue.keys.map((key) => [key, nearest(key, Object.keys(mockOptions))] as const).filter(([, near]) => near);
  return hints.map(([key, near]) => ` Did you mean '${near}' for '${key}'?`).join('');
}

export interface LoadedConfig {
  /** The file read, as found (relative to the working folder when discovered there). */
  readonly file: string;
  /** The file's `mock` options as command-line arguments, to go before the user's own. */
  readonly mockArguments: readonly string[];
}

/**
 * Finds and reads the configuration: `explicit` (--config) if given, else the first of
 * configFileNames in `cwd`, else none. Throws UsageError naming the file and the problem.
 */
export async function loadConfig(options: { explicit?: string; cwd: string }): Promise<LoadedConfig | undefined> {
  const file = options.explicit ?? configFileNames.find((name) => existsSync(join(options.cwd, name)));
  if (file === undefined) return undefined;
  const path = resolve(options.cwd, file);
  let text: string;
  try {
    // A regular file only, bounded, never a FIFO that would hold the start (src/documents/regular-file.ts, A-27).
    ({ text } = await readRegularFile({ path }));
  } catch (error) {
    if (!(error instanceof UserFileError)) throw error;
    throw new UsageError(
      error.problem === 'missing'
        ? `--config: file not found: ${file} (resolved to ${path}). Pass the path of an evidence-harness.config.json or .yaml file.`
        : `--config: ${error.message.replace(path, file)}.`,
    );
  }
  const yaml = ['.yaml', '.yml'].includes(extname(path).toLowerCase());
  let value: unknown;
  try {
    value = await parseDocumentText({ text, yaml });
  } catch (error) {
    if (!(error instanceof DocumentSyntaxError)) throw error;
    const frame = error.frame === undefined ? '' : `:\n\n${error.frame.replace(/^/gm, '    ')}\n`;
    throw new UsageError(`${file} is not valid ${yaml ? 'YAML' : 'JSON'}: ${error.problem}${frame}`);
  }
  const parsed = configSchema.safeParse(value ?? {});
  if (!parsed.success) {
    // zod quotes unknown keys: short quotes only (src/documents/document-text.ts).
    const problems = parsed.error.issues.map((issue) =>
      withShortQuotes(`  /${issue.path.join('/')}: ${issue.message}${unknownKeyHint(issue)}`, text),
    );
    throw new UsageError(
      `${file} is not a valid configuration:\n${problems.join('\n')}\nIts JSON Schema is evidence-harness.config.schema.json in this package; option names are the flags' ('evidence-harness mock --help').`,
    );
  }
  const folder = dirname(path);
  const mockArguments: string[] = [];
  for (const [name, setting] of Object.entries(parsed.data.mock ?? {})) {
    if (setting === undefined || setting === false) continue;
    if (setting === true) {
      mockArguments.push(`--${name}`);
      continue;
    }
    for (const item of Array.isArray(setting) ? setting : [setting]) {
      mockArguments.push(`--${name}=${relativeToFile({ spec: (mockOptions as OptionTable)[name], text: String(item), folder })}`);
    }
  }
  return { file, mockArguments };
}

/**
 * The arguments a command parses: the config file's first, then the command line's, which win
 * (parseArgs keeps the last value of an option). A list option given on the command line
 * replaces the file's list instead of adding to it.
 */
export function withConfigArguments(options: {
  readonly config: readonly string[];
  readonly commandLine: readonly string[];
  readonly listOptions: readonly string[];
}): string[] {
  const given = new Set(options.commandLine.filter((argument) => argument.startsWith('--')).map((argument) => argument.split('=')[0]));
  const fromConfig = options.config.filter((argument) => {
    const name = argument.split('=')[0]!;
    return !(options.listOptions.includes(name.slice(2)) && given.has(name));
  });
  return [...fromConfig, ...options.commandLine];
}
